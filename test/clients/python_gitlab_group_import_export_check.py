"""Drives a running Quarry's group export and import with python-gitlab, as a migration script would.

usage: python3 python_gitlab_group_import_export_check.py <url> <root token>
Prints "ok" when every step behaves as on the real platform; fails with a traceback otherwise.
"""
import sys
import time

import gitlab

from checks import refused

url, root_token = sys.argv[1], sys.argv[2]
gl = gitlab.Gitlab(url, private_token=root_token)
gl.auth()

# The platform allows one download a minute; a script that polls for the archive needs more.
settings = gl.settings.get()
limits = (settings.group_download_export_limit, settings.group_import_limit)
settings.group_download_export_limit = 0
settings.group_import_limit = 0
settings.save()

group = gl.groups.create({"name": "Exported group", "path": "exported-group", "description": "to be moved"})
group.labels.create({"name": "bug", "color": "#FF0000"})
group.milestones.create({"title": "v1", "description": "first"})
gl.groups.create({"name": "Child", "path": "child", "parent_id": group.id})

export = group.exports.create()
deadline = time.time() + 60
while True:
    try:
        archive = export.download()
        break
    except gitlab.exceptions.GitlabGetError as error:
        assert error.response_code == 404, error.response_code
        assert error.error_message == "404 Not found or has expired", error.error_message
        assert time.time() < deadline, "the export did not finish"
        time.sleep(0.2)
assert archive[:2] == b"\x1f\x8b", "the archive is gzip"

answer = gl.groups.import_group(archive, path="imported-group", name="Imported group")
assert answer == {"message": "202 Accepted"}, answer
imported = gl.groups.get("imported-group")
assert imported.visibility == "private", imported.visibility
deadline = time.time() + 60
while not imported.labels.list():
    assert time.time() < deadline, "the import did not finish"
    time.sleep(0.2)
imported = gl.groups.get("imported-group")
assert imported.description == "to be moved", imported.description
assert [label.name for label in imported.labels.list()] == ["bug"]
assert [(m.title, m.description) for m in imported.milestones.list()] == [("v1", "first")]
assert [g.path for g in imported.subgroups.list()] == ["child"]

parent = gl.groups.create({"name": "Parent", "path": "import-parent", "visibility": "internal"})
gl.groups.import_group(archive, path="nested", name="Nested", parent_id=str(parent.id))
assert gl.groups.get("import-parent/nested").visibility == "internal"

refused(lambda: gl.http_post("/groups/import", post_data={"path": "bad", "name": "bad"}, files={"file": ("export.zip", b"x", "application/zip")}), 422, {"error": "You need to upload a GitLab project export archive (ending in .gz)."})
refused(lambda: gl.groups.import_group(archive, path="exported-group", name="Taken"), 400, 'Failed to save group {:path=>["has already been taken"]}')

settings.group_download_export_limit, settings.group_import_limit = limits
settings.save()
print("ok")
