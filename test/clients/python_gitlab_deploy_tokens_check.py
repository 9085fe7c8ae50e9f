"""Drives a running Quarry's deploy tokens with python-gitlab, then clones with one over HTTP.

usage: python3 python_gitlab_deploy_tokens_check.py <url> <root token>
Prints "ok" when every step behaves as on the real platform; fails with a traceback otherwise.
"""
import subprocess
import sys
import tempfile
import urllib.parse

import gitlab

url, root_token = sys.argv[1], sys.argv[2]
gl = gitlab.Gitlab(url, private_token=root_token)
gl.auth()

group = gl.groups.create({"name": "Deploy tokens", "path": "deploy-tokens-check"})
project = gl.projects.create({"name": "service", "namespace_id": group.id, "initialize_with_readme": True})

token = project.deploytokens.create({"name": "deployer", "scopes": ["read_repository"], "username": "deployer", "expires_at": "2035-06-01"})
assert token.username == "deployer" and token.scopes == ["read_repository"], token.attributes
assert token.expires_at == "2035-06-01T00:00:00.000Z" and token.revoked is False and token.expired is False, token.attributes
secret = token.token
assert [t.id for t in project.deploytokens.list(all=True)] == [token.id]

group_token = group.deploytokens.create({"name": "fleet", "scopes": ["read_repository", "read_package_registry"]})
assert group_token.username == f"gitlab+deploy-token-{group_token.id}", group_token.attributes
assert {t.id for t in gl.deploytokens.list(all=True)} >= {token.id, group_token.id}

try:
    project.deploytokens.create({"name": "bad", "scopes": ["read_repository"], "username": "has space"})
    raise AssertionError("an invalid username was accepted")
except gitlab.exceptions.GitlabCreateError as error:
    assert error.response_code == 400, error

# The token clones its project over HTTP, as a deploy script does.
host = urllib.parse.urlsplit(url)
clone_url = f"{host.scheme}://deployer:{secret}@{host.netloc}/{project.path_with_namespace}.git"
with tempfile.TemporaryDirectory() as scratch:
    subprocess.run(["git", "clone", "--quiet", clone_url, scratch + "/clone"], check=True)

project.deploytokens.delete(token.id)
assert project.deploytokens.list(all=True) == []
with tempfile.TemporaryDirectory() as scratch:
    refused = subprocess.run(["git", "clone", "--quiet", clone_url, scratch + "/clone"], capture_output=True, env={"GIT_TERMINAL_PROMPT": "0", "PATH": "/usr/bin:/bin"})
    assert refused.returncode != 0, refused

print("ok")
