"""Drives a running Quarry's badges, notification settings, uploads, Markdown, Sidekiq metrics, project storage
and broadcast messages with python-gitlab.

usage: python3 python_gitlab_small_resources_check.py <url> <root token>
Prints "ok" when every step behaves as on the real platform; fails with a traceback otherwise.
"""
import sys
import urllib.request

import gitlab

url, root_token = sys.argv[1], sys.argv[2]
gl = gitlab.Gitlab(url, private_token=root_token)
gl.auth()

group = gl.groups.create({"name": "Badged", "path": "badged-check"})
project = gl.projects.create({"name": "shields", "namespace_id": group.id, "initialize_with_readme": True})

# Badges: a project's own and its group's, rendered with the project's placeholders.
badge = project.badges.create({"link_url": "https://ci.example.com/%{project_path}/%{default_branch}", "image_url": "https://ci.example.com/%{project_id}.svg", "name": "build"})
assert badge.kind == "project" and badge.rendered_link_url == "https://ci.example.com/badged-check/shields/main", badge.attributes
assert badge.rendered_image_url == f"https://ci.example.com/{project.id}.svg", badge.attributes
badge.name = "pipeline"
badge.save()
assert project.badges.get(badge.id).name == "pipeline"
preview = project.badges.render("https://x.example/%{commit_sha}", "https://x.example/i.svg")
assert preview["link_url"] == "https://x.example/%{commit_sha}" and len(preview["rendered_link_url"]) == len("https://x.example/") + 40, preview
group_badge = group.badges.create({"link_url": "https://g.example/%{project_path}", "image_url": "https://g.example/i.svg"})
assert group_badge.kind == "group" and group_badge.rendered_link_url == "https://g.example/%{project_path}", group_badge.attributes
listed = project.badges.list(all=True)
assert [(b.id, b.kind) for b in listed] == [(badge.id, "project"), (group_badge.id, "group")], [b.attributes for b in listed]
assert listed[1].rendered_link_url == "https://g.example/badged-check/shields", listed[1].attributes
assert group.badges.render("https://g.example/%{project_id}", "https://g.example/i.svg")["rendered_link_url"] == "https://g.example/%{project_id}"
try:
    project.badges.create({"link_url": "nope", "image_url": "https://x.example/i.svg"})
    raise AssertionError("an invalid URL was accepted")
except gitlab.exceptions.GitlabCreateError as error:
    assert error.response_code == 400, error
try:
    project.badges.delete(group_badge.id)
    raise AssertionError("a group badge was removed through its project")
except gitlab.exceptions.GitlabDeleteError as error:
    assert error.response_code == 403, error
group_badge.delete()
badge.delete()
assert project.badges.list(all=True) == []

# Notification settings: global, per project, per group.
settings = gl.notificationsettings.get()
assert settings.level == "participating" and settings.notification_email, settings.attributes
settings.level = "watch"
settings.save()
assert gl.notificationsettings.get().level == "watch"
project_settings = project.notificationsettings.get()
assert project_settings.level == "global", project_settings.attributes
project_settings.level = "custom"
project_settings.new_note = True
project_settings.save()
reread = project.notificationsettings.get()
assert reread.level == "custom" and reread.events["new_note"] is True and reread.events["failed_pipeline"] is True, reread.attributes
group_settings = group.notificationsettings.get()
group_settings.level = "mention"
group_settings.save()
assert group.notificationsettings.get().level == "mention"
try:
    group_settings.level = "loud"
    group_settings.save()
    raise AssertionError("an unknown level was accepted")
except gitlab.exceptions.GitlabUpdateError as error:
    assert error.response_code == 400, error

# Uploads: the file comes back from the project's path.
uploaded = project.upload("notes.txt", filedata=b"release notes")
assert uploaded["alt"] == "notes.txt" and uploaded["markdown"] == f"[notes.txt]({uploaded['url']})", uploaded
request = urllib.request.Request(f"{url}/{project.path_with_namespace}{uploaded['url']}", headers={"PRIVATE-TOKEN": root_token})
with urllib.request.urlopen(request) as response:
    assert response.read() == b"release notes"

# Markdown rendered as the platform's GitLab-flavoured renderer does.
html = gl.markdown("Fixes #1 with **care**", gfm=True, project=project.path_with_namespace)
assert "<strong>care</strong>" in html, html

# Where the project's repository lives (administrators).
storage = project.storage.get()
assert storage.project_id == project.id and storage.repository_storage == "default", storage.attributes
assert storage.disk_path.startswith("@hashed/") and storage.created_at, storage.attributes

# Broadcast messages: written by administrators, read by anyone signed in.
message = gl.broadcastmessages.create({"message": "Maintenance tonight", "broadcast_type": "notification", "target_access_levels": [30, 40]})
assert message.target_access_levels == [30, 40] and message.broadcast_type == "notification", message.attributes
message.message = "Maintenance moved"
message.save()
assert gl.broadcastmessages.get(message.id).message == "Maintenance moved"
assert [m.id for m in gl.broadcastmessages.list(all=True)] == [message.id]
message.delete()
assert gl.broadcastmessages.list(all=True) == []

# Sidekiq metrics from the job queue; the Community Edition has no license API.
assert isinstance(gl.sidekiq.queue_metrics()["queues"], dict)
assert gl.sidekiq.process_metrics()["processes"][0]["concurrency"] == 2
assert set(gl.sidekiq.job_stats()["jobs"]) == {"processed", "failed", "enqueued", "dead"}
assert set(gl.sidekiq.compound_metrics()) == {"queues", "processes", "jobs"}
try:
    gl.get_license()
    raise AssertionError("a license API answered")
except gitlab.exceptions.GitlabLicenseError as error:
    assert error.response_code == 404, error

print("ok")
