"""Drives a running Quarry's application settings with python-gitlab, as an administrator's script would.

usage: python3 python_gitlab_settings_check.py <url> <root token>
Prints "ok" when every step behaves as on the real platform; fails with a traceback otherwise.
The settings it changes are put back at the end, whatever happens.
"""
import secrets
import sys

import gitlab
import requests

from checks import refused

url, root_token = sys.argv[1], sys.argv[2]
gl = gitlab.Gitlab(url, private_token=root_token)
gl.auth()



settings = gl.settings.get()
original = {
    name: getattr(settings, name)
    for name in [
        "default_projects_limit",
        "restricted_visibility_levels",
        "domain_denylist_enabled",
        "domain_denylist",
        "import_sources",
        "signup_enabled",
        "require_admin_approval_after_user_signup",
        "default_branch_protection",
    ]
}
# The 14.x defaults.
assert settings.default_projects_limit == 100000, settings.default_projects_limit
assert settings.default_branch_protection == 2
assert settings.default_project_visibility == "private"
assert settings.restricted_visibility_levels == []
assert settings.signup_enabled is True and settings.signin_enabled is True
assert settings.repository_storages_weighted == {"default": 100}
assert settings.max_import_size == 0

try:
    # Lists go as comma strings (python-gitlab's array attributes), booleans and numbers as given.
    settings.default_projects_limit = 3
    settings.restricted_visibility_levels = ["public"]
    settings.domain_denylist_enabled = True
    settings.domain_denylist = ["spam.test", "*.spam.test"]
    settings.import_sources = ["git", "github"]
    settings.default_branch_protection = 1
    settings.save()
    settings = gl.settings.get()
    assert settings.default_projects_limit == 3
    assert settings.restricted_visibility_levels == ["public"]
    assert settings.domain_denylist == ["spam.test", "*.spam.test"]
    assert settings.import_sources == ["git", "github"]
    assert settings.default_branch_protection == 1

    # New users get the new limit; a regular user may not make a project public.
    name = "set" + secrets.token_hex(3)
    user = gl.users.create({"username": name, "name": name, "email": f"{name}@example.com", "password": "Secret-pass-42!", "skip_confirmation": True})
    assert user.projects_limit == 3, user.projects_limit
    token = user.personal_access_tokens.create({"name": "t", "scopes": ["api"]}).token
    mine = gitlab.Gitlab(url, private_token=token)
    refused(
        lambda: mine.projects.create({"name": "open", "visibility": "public"}),
        400,
        {"visibility_level": ["public has been restricted by your GitLab administrator"]},
    )

    # A setting that needs another is refused without it; a bad value is refused.
    refused(lambda: gl.settings.update(new_data={"akismet_enabled": True}), 400, "akismet_api_key is missing")
    refused(lambda: gl.settings.update(new_data={"default_branch_protection": 9}), 400, "default_branch_protection does not have a valid value")
    refused(lambda: gl.settings.update(new_data={"minimum_password_length": 4}), 400, {"minimum_password_length": ["must be greater than or equal to 8"]})

    # Sign-ups wait for approval; an administrator approves them ...
    settings.require_admin_approval_after_user_signup = True
    settings.save()
    pending = "pend" + secrets.token_hex(3)
    form = {"user[name]": pending, "user[username]": pending, "user[email]": f"{pending}@example.com", "user[password]": "Secret-pass-42!"}
    response = requests.post(f"{url}/users/sign_up", data=form, allow_redirects=False)
    assert response.status_code == 200 and "awaiting approval" in response.text, response.text
    waiting = gl.users.list(username=pending)[0]
    assert waiting.state == "blocked_pending_approval", waiting.state
    waiting.approve()
    assert gl.users.get(waiting.id).state == "active"
    refused(waiting.approve, 409, "The user you are trying to approve is not pending approval")
    # ... or reject them, which deletes the account.
    turned_down = "nope" + secrets.token_hex(3)
    form = dict(form, **{"user[name]": turned_down, "user[username]": turned_down, "user[email]": f"{turned_down}@example.com"})
    assert requests.post(f"{url}/users/sign_up", data=form, allow_redirects=False).status_code == 200
    rejected = gl.users.list(username=turned_down)[0]
    rejected.reject()
    assert gl.users.list(username=turned_down) == []
    refused(waiting.reject, 409, "User does not have a pending request")
    # A denied domain cannot sign up.
    denied = dict(form, **{"user[username]": "spam" + secrets.token_hex(3), "user[email]": "someone@mail.spam.test"})
    response = requests.post(f"{url}/users/sign_up", data=denied, allow_redirects=False)
    assert "Email is not from an allowed domain." in response.text, response.text

    # Not an administrator: 403.
    refused(lambda: mine.settings.get(), 403, "403 Forbidden")
finally:
    gl.settings.update(new_data=original)

settings = gl.settings.get()
assert settings.default_projects_limit == 100000 and settings.restricted_visibility_levels == []
print("ok")
