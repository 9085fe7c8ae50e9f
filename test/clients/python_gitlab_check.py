"""Drives a running Quarry with python-gitlab, the way an integration would.

usage: python3 python_gitlab_check.py <url> <root token>
Prints "ok" when every step behaves as on the real platform; fails with a traceback otherwise.
"""
import sys

import gitlab

url, root_token = sys.argv[1], sys.argv[2]
gl = gitlab.Gitlab(url, private_token=root_token)
gl.auth()
assert gl.user.username == "root" and gl.user.is_admin is True

version, revision = gl.version()
assert version == "14.4.0", version

alice = gl.users.create({"username": "alice", "email": "alice@example.com", "name": "Alice",
                         "password": "alice-password-1", "skip_confirmation": True})
alice.bio = "writes integrations"
alice.save()
assert gl.users.get(alice.id).bio == "writes integrations"

for i in range(24):
    gl.users.create({"username": f"bulk{i:02d}", "email": f"bulk{i:02d}@example.com", "name": f"Bulk {i}",
                     "force_random_password": True})

everyone = gl.users.list(all=True, per_page=10)
assert len(everyone) == 26, len(everyone)
page2 = gl.users.list(per_page=10, page=2)
assert len(page2) == 10
listing = gl.users.list(iterator=True, per_page=10)
assert listing.total == 26 and listing.total_pages == 3 and listing.per_page == 10, (listing.total, listing.total_pages)
assert len(list(listing)) == 26

keyset = gl.users.list(pagination="keyset", order_by="id", sort="asc", per_page=7, iterator=True)
ids = [u.id for u in keyset]
assert ids == sorted(ids) and len(ids) == 26, ids

found = gl.users.list(username="ALICE")
assert [u.id for u in found] == [alice.id]
assert [u.username for u in gl.users.list(search="@alice")] == ["alice"]

try:
    gl.users.get(999999)
    raise AssertionError("missing user was found")
except gitlab.exceptions.GitlabGetError as e:
    assert e.response_code == 404 and "404 User Not Found" in str(e.error_message), e.error_message

try:
    gl.users.create({"username": "ALICE", "email": "other@example.com", "name": "Other", "password": "other-password-1"})
    raise AssertionError("duplicate username was accepted")
except gitlab.exceptions.GitlabCreateError as e:
    assert e.response_code == 409 and "Username has already been taken" in str(e.error_message), e.error_message

alice.block()
assert gl.users.get(alice.id).state == "blocked"
alice.unblock()
assert gl.users.get(alice.id).state == "active"

pat = alice.personal_access_tokens.create({"name": "ci", "scopes": ["api"]})
as_alice = gitlab.Gitlab(url, private_token=pat.token)
as_alice.auth()
assert as_alice.user.username == "alice"
assert [t.name for t in as_alice.personal_access_tokens.list()] == ["ci"]

imp = alice.impersonationtokens.create({"name": "support", "scopes": ["read_api"]})
as_support = gitlab.Gitlab(url, private_token=imp.token)
as_support.auth()
assert as_support.user.username == "alice"
assert [t.name for t in alice.impersonationtokens.list(state="active")] == ["support"]

sudo = gitlab.Gitlab(url, private_token=root_token)
sudo.headers["Sudo"] = "alice"
sudo.auth()
assert sudo.user.username == "alice"

try:
    as_alice.users.create({"username": "mallory", "email": "m@example.com", "name": "M", "password": "mallory-password"})
    raise AssertionError("a regular user created a user")
except gitlab.exceptions.GitlabCreateError as e:
    assert e.response_code == 403, e.response_code

gl.personal_access_tokens.delete(pat.id)
try:
    as_alice.auth()
    raise AssertionError("a revoked token still works")
except gitlab.exceptions.GitlabAuthenticationError as e:
    assert e.response_code == 401

# Groups, projects, members, events: what an integration sets up first.
group = gl.groups.create({"name": "Platform", "path": "platform", "visibility": "internal"})
sub = gl.groups.create({"name": "Tools", "path": "tools", "parent_id": group.id})
assert sub.full_path == "platform/tools", sub.full_path
project = gl.projects.create({"name": "Deploy Bot", "namespace_id": sub.id, "description": "ships things",
                              "topics": ["ops", "bots"]})
assert project.path == "deploy-bot" and project.path_with_namespace == "platform/tools/deploy-bot"
assert gl.projects.get("platform/tools/deploy-bot").id == project.id
project.members.create({"user_id": alice.id, "access_level": 30})
assert [m.username for m in project.members.list()] == ["alice"]
assert {m.username for m in project.members_all.list(all=True)} == {"root", "alice"}
as_alice_again = gitlab.Gitlab(url, private_token=alice.impersonationtokens.create({"name": "again", "scopes": ["api"]}).token)
mine = as_alice_again.projects.list(membership=True)
assert [p.id for p in mine] == [project.id]
assert [p.id for p in gl.projects.list(topic="ops,bots")] == [project.id]
assert [p.id for p in gl.projects.list(search="deploy")] == [project.id]
project.star()
assert gl.projects.get(project.id).star_count == 1
project.archive()
assert gl.projects.get(project.id).archived is True
project.unarchive()
assert [g.full_path for g in group.subgroups.list()] == ["platform/tools"]
assert gl.namespaces.get("platform/tools").kind == "group"
actions = [e.action_name for e in project.events.list()]
assert "joined" in actions and "created" in actions, actions
try:
    gitlab.Gitlab(url).projects.get(project.id)
    raise AssertionError("an internal project was readable anonymously")
except gitlab.exceptions.GitlabGetError as e:
    assert e.response_code == 404 and "404 Project Not Found" in str(e.error_message)
project.delete()
sub.delete()
group.delete()

alice.delete()
try:
    gl.users.get(alice.id)
    raise AssertionError("deleted user still readable")
except gitlab.exceptions.GitlabGetError as e:
    assert e.response_code == 404

print("ok")
