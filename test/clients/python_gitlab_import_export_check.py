"""Drives a running Quarry's project export and import with python-gitlab, as a migration script would.

usage: python3 python_gitlab_import_export_check.py <url> <root token>
Prints "ok" when every step behaves as on the real platform; fails with a traceback otherwise.
"""
import sys
import time

import gitlab

url, root_token = sys.argv[1], sys.argv[2]
gl = gitlab.Gitlab(url, private_token=root_token)
gl.auth()

project = gl.projects.create({"name": "exported", "initialize_with_readme": True, "description": "to be moved"})
project.labels.create({"name": "bug", "color": "#FF0000"})
issue = project.issues.create({"title": "Moved issue", "labels": ["bug"]})
issue.notes.create({"body": "travels along"})

export = project.exports.create({"description": "moved"})
assert export.attributes.get("message") == "202 Accepted" or export.get_id() is not None, export.attributes
export = project.exports.get()
deadline = time.time() + 60
while export.export_status != "finished":
    assert export.export_status in ("queued", "started", "regeneration_in_progress"), export.export_status
    assert time.time() < deadline, "the export did not finish"
    time.sleep(0.2)
    export.refresh()
assert export._links["api_url"].endswith(f"/projects/{project.id}/export/download"), export._links
archive = export.download()
assert archive[:2] == b"\x1f\x8b", "the archive is gzip"

output = gl.projects.import_project(archive, path="imported", name="Imported", override_params={"description": "arrived"})
assert output["import_status"] == "scheduled", output
imported = gl.projects.get(output["id"])
status = imported.imports.get()
deadline = time.time() + 60
while status.import_status != "finished":
    assert status.import_status in ("scheduled", "started"), (status.import_status, status.import_error)
    assert time.time() < deadline, "the import did not finish"
    time.sleep(0.2)
    status.refresh()
assert status.failed_relations == [], status.failed_relations
imported = gl.projects.get(output["id"])
assert imported.description == "arrived", imported.description
assert imported.default_branch == "main", imported.default_branch
issues = imported.issues.list()
assert [i.title for i in issues] == ["Moved issue"], issues
assert issues[0].labels == ["bug"], issues[0].labels
notes = [n.body for n in issues[0].notes.list() if not n.system]
assert notes == ["travels along"], notes

try:
    gl.http_post("/projects/import", post_data={"path": "bad"}, files={"file": ("export.zip", b"x", "application/zip")})
    raise AssertionError("an archive not ending in .gz was accepted")
except gitlab.exceptions.GitlabHttpError as error:
    assert error.response_code == 422, error.response_code

print("ok")
