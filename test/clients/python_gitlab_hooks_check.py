"""Drives a running Quarry's webhooks with python-gitlab, as an integration would.

usage: python3 python_gitlab_hooks_check.py <url> <root token>
Prints "ok" when every step behaves as on the real platform; fails with a traceback otherwise.
"""
import sys

import gitlab

from checks import refused

url, root_token = sys.argv[1], sys.argv[2]
gl = gitlab.Gitlab(url, private_token=root_token)
gl.auth()



project = gl.projects.create({"name": "hooked"})
hook = project.hooks.create({"url": "https://example.com/hook", "issues_events": True, "token": "secret", "push_events_branch_filter": "main"})
assert hook.issues_events is True and hook.push_events is True, hook.attributes
assert hook.push_events_branch_filter == "main"
assert "token" not in hook.attributes
assert [h.id for h in project.hooks.list()] == [hook.id]
hook.url = "https://example.com/other"
hook.note_events = True
hook.save()
again = project.hooks.get(hook.id)
assert (again.url, again.note_events) == ("https://example.com/other", True)
refused(lambda: project.hooks.create({"url": "ftp://example.com"}), 422, "Invalid url given")
refused(lambda: project.hooks.create({"url": "https://example.com", "push_events_branch_filter": "a..b"}), 422, "Invalid branch filter given")
again.delete()
assert project.hooks.list() == []
refused(lambda: project.hooks.get(hook.id), 404, "404 Not found")

group = gl.groups.create({"name": "hooked-group", "path": "hooked-group"})
ghook = group.hooks.create({"url": "https://example.com/group", "member_events": True})
assert ghook.group_id == group.id and ghook.member_events is True
assert [h.id for h in group.hooks.list()] == [ghook.id]
ghook.delete()

shook = gl.hooks.create({"url": "https://example.com/system", "push_events": True})
assert (shook.push_events, shook.repository_update_events) == (True, True)
assert shook.id in [h.id for h in gl.hooks.list()]
gl.hooks.delete(shook.id)
assert shook.id not in [h.id for h in gl.hooks.list()]
print("ok")
