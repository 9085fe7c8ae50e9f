"""Drives a running Quarry's discussions and resource events with python-gitlab.

usage: python3 python_gitlab_discussions_check.py <url> <root token>
Prints "ok" when every step behaves as on the real platform; fails with a traceback otherwise.
"""
import sys

import gitlab

url, root_token = sys.argv[1], sys.argv[2]
gl = gitlab.Gitlab(url, private_token=root_token)
gl.auth()

project = gl.projects.create({"name": "Discussions check", "initialize_with_readme": True})
milestone = project.milestones.create({"title": "v1"})

# Issue threads: a new thread, a reply, an edit; the issue's events.
issue = project.issues.create({"title": "Talk", "labels": ["bug"], "milestone_id": milestone.id})
thread = issue.discussions.create({"body": "first"})
assert len(thread.id) == 40 and thread.individual_note is False, thread.attributes
reply = thread.notes.create({"body": "second"})
assert reply.type == "DiscussionNote", reply.attributes
note = thread.notes.get(reply.id)
note.body = "edited"
note.save()
shown = issue.discussions.get(thread.id)
assert [n["body"] for n in shown.attributes["notes"]] == ["first", "edited"], shown.attributes
assert [d.id for d in issue.discussions.list(all=True)] == [thread.id]
note.delete()

issue.state_event = "close"
issue.save()
labels = issue.resourcelabelevents.list(all=True)
assert [(e.label["name"], e.action, e.resource_type) for e in labels] == [("bug", "add", "Issue")], [e.attributes for e in labels]
assert issue.resourcelabelevents.get(labels[0].id).id == labels[0].id
states = issue.resourcestateevents.list(all=True)
assert [e.state for e in states] == ["closed"], [e.attributes for e in states]
assert issue.resourcestateevents.get(states[0].id).state == "closed"
milestones = issue.resourcemilestoneevents.list(all=True)
assert [(e.milestone["id"], e.action, e.state) for e in milestones] == [(milestone.id, "add", "opened")], [e.attributes for e in milestones]
assert issue.resourcemilestoneevents.get(milestones[0].id).action == "add"

# Merge request threads on a line of the diff, resolved as a whole and note by note.
project.branches.create({"branch": "topic", "ref": "main"})
project.files.create({"file_path": "lib/a.txt", "branch": "topic", "content": "one\ntwo\n", "commit_message": "Add a"})
mr = project.mergerequests.create({"source_branch": "topic", "target_branch": "main", "title": "Topic"})
refs = mr.diff_refs
position = {"base_sha": refs["base_sha"], "start_sha": refs["start_sha"], "head_sha": refs["head_sha"], "position_type": "text", "new_path": "lib/a.txt", "new_line": 2}
diff_thread = mr.discussions.create({"body": "why two?", "position": position})
first = diff_thread.attributes["notes"][0]
assert first["type"] == "DiffNote" and first["position"]["new_line"] == 2 and first["resolvable"] is True, first
diff_thread.notes.create({"body": "because"})
diff_thread.resolved = True
diff_thread.save()
resolved = mr.discussions.get(diff_thread.id)
assert [n["resolved"] for n in resolved.attributes["notes"]] == [True, True], resolved.attributes
# python-gitlab's note save() always sends `body`, which the platform takes with `resolved` for
# exactly one of them: a note is resolved through the client's raw request.
path = f"/projects/{project.id}/merge_requests/{mr.iid}/discussions/{diff_thread.id}/notes/{first['id']}"
unresolved = gl.http_put(path, post_data={"resolved": False})
assert unresolved["resolved"] is False and "resolved_by" in unresolved, unresolved
again = mr.discussions.get(diff_thread.id)
assert [n["resolved"] for n in again.attributes["notes"]] == [False, True], again.attributes

try:
    mr.discussions.create({"body": "off the diff", "position": {**position, "new_line": 99}})
    raise AssertionError("a line off the diff was accepted")
except gitlab.exceptions.GitlabCreateError as error:
    assert error.response_code == 400, error

mr.state_event = "close"
mr.save()
assert [e.state for e in mr.resourcestateevents.list(all=True)] == ["closed"]
assert mr.resourcelabelevents.list(all=True) == []
assert mr.resourcemilestoneevents.list(all=True) == []

print("ok")
