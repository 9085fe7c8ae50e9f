"""Drives a running Quarry's group and project invitations with python-gitlab, as an integration would.

usage: python3 python_gitlab_invitations_check.py <url> <root token>
Prints "ok" when every step behaves as on the real platform; fails with a traceback otherwise.
"""
import sys

import gitlab

url, root_token = sys.argv[1], sys.argv[2]
gl = gitlab.Gitlab(url, private_token=root_token)
gl.auth()

group = gl.groups.create({"name": "Invitations Check", "path": "invitations-check"})
project = gl.projects.create({"name": "invitations-check-project"})
known = gl.users.create({"username": "invite-known", "email": "known@invite.example", "name": "Known",
                         "password": "known-password-1", "skip_confirmation": True})

# Several addresses at once: the confirmed owner of one is a member at once, the others wait.
result = group.invitations.create({"email": ["new@invite.example", "known@invite.example", "other@invite.example"],
                                   "access_level": gitlab.const.DEVELOPER_ACCESS})
assert result.status == "success", result.attributes
assert {m.username for m in group.members.list(all=True)} == {"root", "invite-known"}

pending = group.invitations.list(all=True)
assert [i.invite_email for i in pending] == ["new@invite.example", "other@invite.example"], [i.attributes for i in pending]
first = pending[0]
assert first.access_level == 30 and first.expires_at is None and first.user_name is None, first.attributes
assert first.created_by_name == gl.user.name, first.attributes
# (group_id is the client's own: the parent it was listed from.)
assert sorted(first.attributes) == ["access_level", "created_at", "created_by_name", "expires_at", "group_id", "id", "invite_email", "user_name"], first.attributes
assert [i.invite_email for i in group.invitations.list(query="other@invite.example")] == ["other@invite.example"]

# Failures come back per address, raised by the client.
try:
    group.invitations.create({"email": "new@invite.example,known@invite.example", "access_level": 30})
    raise AssertionError("inviting again succeeded")
except gitlab.exceptions.GitlabInvitationError as e:
    assert e.error_message == {"new@invite.example": "Member already invited to Invitations Check",
                               "known@invite.example": "Already a member of Invitations Check"}, e.error_message

try:
    project.invitations.create({"email": "boss@invite.example", "access_level": gitlab.const.OWNER_ACCESS})
    raise AssertionError("a project invitation at the owner level was made")
except gitlab.exceptions.GitlabInvitationError as e:
    assert e.error_message == {"boss@invite.example": "Access level is not included in the list"}, e.error_message

try:
    project.invitations.create({"email": "not an address", "access_level": 30})
    raise AssertionError("a malformed address was invited")
except gitlab.exceptions.GitlabCreateError as e:
    assert e.response_code == 400 and "email contains an invalid email address" in e.error_message, (e.response_code, e.error_message)

# Changing and withdrawing an invitation, named by its address.
editable = group.invitations.get("new@invite.example", lazy=True)
editable.access_level = gitlab.const.MAINTAINER_ACCESS
editable.expires_at = "2099-01-31"
editable.save()
assert editable.access_level == 40 and editable.expires_at == "2099-01-31", editable.attributes
changed = group.invitations.list(query="new@invite.example")[0]
assert (changed.access_level, changed.expires_at) == (40, "2099-01-31"), changed.attributes

try:
    group.invitations.update("nobody@invite.example", {"access_level": 30})
    raise AssertionError("an invitation nobody made was changed")
except gitlab.exceptions.GitlabUpdateError as e:
    assert e.response_code == 404, e.response_code

group.invitations.delete("new@invite.example")
assert [i.invite_email for i in group.invitations.list(all=True)] == ["other@invite.example"]
try:
    group.invitations.delete("new@invite.example")
    raise AssertionError("a withdrawn invitation was withdrawn again")
except gitlab.exceptions.GitlabDeleteError as e:
    assert e.response_code == 404, e.response_code

# Project invitations are the project's own.
project.invitations.create({"email": "dev@invite.example", "access_level": gitlab.const.REPORTER_ACCESS})
assert [(i.invite_email, i.access_level) for i in project.invitations.list(all=True)] == [("dev@invite.example", 20)]
assert [m.username for m in project.members.list(all=True)] == ["root"]

# Someone who may not administer the group is refused.
known_client = gitlab.Gitlab(url, private_token=known.impersonationtokens.create({"name": "t", "scopes": ["api"]}).token)
try:
    known_client.groups.get(group.id, lazy=True).invitations.create({"email": "sneaky@invite.example", "access_level": 30})
    raise AssertionError("a developer invited someone to the group")
except gitlab.exceptions.GitlabCreateError as e:
    assert e.response_code == 403, e.response_code
assert [i.invite_email for i in known_client.groups.get(group.id, lazy=True).invitations.list(all=True)] == ["other@invite.example"]

print("ok")
