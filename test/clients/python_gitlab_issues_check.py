"""Drives a running Quarry's issues, comments and labels with python-gitlab, as an integration would.

usage: python3 python_gitlab_issues_check.py <url> <root token>
Prints "ok" when every step behaves as on the real platform; fails with a traceback otherwise.
"""
import sys

import gitlab

url, root_token = sys.argv[1], sys.argv[2]
gl = gitlab.Gitlab(url, private_token=root_token)
gl.auth()

project = gl.projects.create({"name": "issues-check"})
project.labels.create({"name": "bug", "color": "#d9534f"})

issue = project.issues.create({"title": "It breaks", "description": "- [ ] fix it", "labels": ["bug", "ui"], "assignee_ids": [gl.user.id]})
assert issue.iid == 1 and issue.state == "opened", (issue.iid, issue.state)
assert sorted(issue.labels) == ["bug", "ui"], issue.labels
assert issue.assignees[0]["username"] == gl.user.username
assert issue.references["short"] == "#1"

# Labels created on the way are project labels like the others.
assert sorted(label.name for label in project.labels.list(all=True)) == ["bug", "ui"]

issue.notes.create({"body": "Looking into it"})
issue.state_event = "close"
issue.save()
issue = project.issues.get(1)
assert issue.state == "closed" and issue.attributes["closed_by"]["id"] == gl.user.id, issue.attributes
assert issue.user_notes_count == 1, issue.user_notes_count

bodies = [note.body for note in issue.notes.list(all=True, sort="asc")]
assert bodies == ["Looking into it", "closed"], bodies

second = project.issues.create({"title": "Another"})
assert second.iid == 2
opened = project.issues.list(state="opened", all=True)
assert [i.iid for i in opened] == [2], [i.iid for i in opened]
labelled = project.issues.list(labels=["bug"], all=True)
assert [i.iid for i in labelled] == [1]
assert [i.iid for i in gl.issues.list(search="Another", all=True)] == [2]

try:
    project.issues.create({"title": ""})
    raise AssertionError("an issue without a title was created")
except gitlab.exceptions.GitlabCreateError as e:
    assert e.response_code == 400, e.response_code

second.delete()
try:
    project.issues.get(2)
    raise AssertionError("a deleted issue was found")
except gitlab.exceptions.GitlabGetError as e:
    assert e.response_code == 404, e.response_code

print("ok")
