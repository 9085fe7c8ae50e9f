"""Drives a running Quarry's project and group milestones with python-gitlab, as an integration would.

usage: python3 python_gitlab_milestones_check.py <url> <root token>
Prints "ok" when every step behaves as on the real platform; fails with a traceback otherwise.
"""
import datetime
import sys

import gitlab

url, root_token = sys.argv[1], sys.argv[2]
gl = gitlab.Gitlab(url, private_token=root_token)
gl.auth()

group = gl.groups.create({"name": "Planning", "path": "planning"})
project = gl.projects.create({"name": "planned", "namespace_id": group.id})

# Project milestones: dates as clients send them, answered as dates.
today = datetime.date.today()
sprint = project.milestones.create({"title": "Sprint 1", "description": "first", "start_date": today.isoformat(), "due_date": f"{today + datetime.timedelta(days=14)}T12:00:00Z"})
assert sprint.iid == 1 and sprint.state == "active" and sprint.project_id == project.id, sprint.attributes
assert sprint.due_date == (today + datetime.timedelta(days=14)).isoformat() and sprint.expired is False, sprint.attributes
backlog = project.milestones.create({"title": "Backlog"})
assert backlog.iid == 2 and backlog.due_date is None and backlog.expired is None, backlog.attributes

try:
    project.milestones.create({"title": "Backwards", "start_date": "2026-05-02", "due_date": "2026-05-01"})
    raise AssertionError("a milestone due before it starts was created")
except gitlab.exceptions.GitlabCreateError as e:
    assert e.response_code == 400, e.response_code
    assert "must be greater than start date" in e.error_message, e.error_message

assert [m.title for m in project.milestones.list(all=True)] == ["Sprint 1", "Backlog"]
assert [m.title for m in project.milestones.list(iids=[2], all=True)] == ["Backlog"]
assert [m.title for m in project.milestones.list(search="sprint", all=True)] == ["Sprint 1"]

backlog.state_event = "close"
backlog.description = "someday"
backlog.save()
backlog = project.milestones.get(backlog.id)
assert backlog.state == "closed" and backlog.description == "someday", backlog.attributes
assert [m.title for m in project.milestones.list(state="closed", all=True)] == ["Backlog"]

issue = project.issues.create({"title": "Do it", "milestone_id": sprint.id, "weight": 2})
assert issue.milestone["id"] == sprint.id
assert [i.iid for i in sprint.issues()] == [issue.iid]
assert list(sprint.merge_requests()) == []

events = gl.http_get(f"/projects/{project.id}/milestones/{sprint.id}/burndown_events")
assert events[0]["action"] == "created" and events[0]["weight"] == 2, events
try:
    gl.http_get(f"/projects/{project.id}/milestones/{backlog.id}/burndown_events")
    raise AssertionError("a milestone without dates drew a burndown chart")
except gitlab.exceptions.GitlabHttpError as e:
    assert e.response_code == 405, e.response_code

# Group milestones.
quarter = group.milestones.create({"title": "Q3", "due_date": "2030-09-30"})
assert quarter.group_id == group.id and quarter.iid == 1, quarter.attributes
assert [m.title for m in group.milestones.list(all=True)] == ["Q3"]
quarter.title = "Q3 2030"
quarter.save()
assert group.milestones.get(quarter.id).title == "Q3 2030"
assert [m.title for m in project.milestones.list(include_parent_milestones=True, all=True)] == ["Sprint 1", "Q3 2030", "Backlog"]
issue.milestone_id = quarter.id
issue.save()
assert [i.title for i in quarter.issues()] == ["Do it"]
assert list(quarter.merge_requests()) == []

# Promotion: the project milestone becomes the group's, its issues with it.
planned = project.issues.create({"title": "Planned", "milestone_id": sprint.id})
assert sprint.promote() == 200
promoted = [m for m in group.milestones.list(all=True) if m.title == "Sprint 1"]
assert len(promoted) == 1 and promoted[0].group_id == group.id, [m.attributes for m in group.milestones.list(all=True)]
assert project.issues.get(planned.iid).milestone["id"] == promoted[0].id
try:
    project.milestones.get(sprint.id)
    raise AssertionError("a promoted project milestone is still there")
except gitlab.exceptions.GitlabGetError as e:
    assert e.response_code == 404, e.response_code

quarter.delete()
assert [m.title for m in group.milestones.list(all=True)] == ["Sprint 1"]
backlog.delete()
assert project.milestones.list(all=True) == []

print("ok")
