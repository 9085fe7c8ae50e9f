"""Drives a running Quarry's OAuth applications with python-gitlab, then signs a user in through the
authorization-code flow with the registered client and calls the API with the token it gets.

usage: python3 python_gitlab_applications_check.py <url> <root token>
Prints "ok" when every step behaves as on the real platform; fails with a traceback otherwise.
"""
import re
import secrets
import sys
import urllib.parse

import gitlab
import requests

from checks import refused

url, root_token = sys.argv[1], sys.argv[2]
gl = gitlab.Gitlab(url, private_token=root_token)
gl.auth()

callback = "https://client.example/callback"
app = gl.applications.create({"name": "Check client", "redirect_uri": callback, "scopes": "api read_user"})
assert re.fullmatch(r"[0-9a-f]{64}", app.application_id) and re.fullmatch(r"[0-9a-f]{64}", app.secret), app.attributes
assert app.callback_url == callback and app.confidential is True, app.attributes
assert app.id in [a.id for a in gl.applications.list(all=True)]
refused(lambda: gl.applications.create({"name": "x", "redirect_uri": "relative/path", "scopes": "api"}), 400, {"redirect_uri": ["must be an absolute URI."]})

# A user signs in on the web and lets the application act for them.
name = "oauth" + secrets.token_hex(3)
password = "Secret-pass-42!"
gl.users.create({"username": name, "name": name, "email": f"{name}@example.com", "password": password, "skip_confirmation": True})
web = requests.Session()
assert web.post(f"{url}/users/sign_in", data={"user[login]": name, "user[password]": password}, allow_redirects=False).status_code == 302
query = {"client_id": app.application_id, "redirect_uri": callback, "response_type": "code", "scope": "read_user", "state": "st"}
consent = web.get(f"{url}/oauth/authorize", params=query, allow_redirects=False)
assert consent.status_code == 200 and "Check client" in consent.text, consent.text
csrf = re.search(r'name="authenticity_token" value="([^"]+)"', consent.text).group(1)
approved = web.post(f"{url}/oauth/authorize", data=dict(query, authenticity_token=csrf), allow_redirects=False)
assert approved.status_code == 302, approved.text
location = urllib.parse.urlparse(approved.headers["location"])
params = urllib.parse.parse_qs(location.query)
assert params["state"] == ["st"], params
token = requests.post(
    f"{url}/oauth/token",
    data={"grant_type": "authorization_code", "code": params["code"][0], "redirect_uri": callback},
    auth=(app.application_id, app.secret),
).json()
assert token["scope"] == "read_user" and token["token_type"] == "Bearer", token
as_user = gitlab.Gitlab(url, oauth_token=token["access_token"])
as_user.auth()
assert as_user.user.username == name

# Deleting the application ends its tokens.
gl.applications.delete(app.id)
try:
    gitlab.Gitlab(url, oauth_token=token["access_token"]).auth()
    raise AssertionError("the token still works")
except gitlab.exceptions.GitlabAuthenticationError:
    pass

print("ok")
