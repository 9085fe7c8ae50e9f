"""Drives a running Quarry's plan limits, generic packages and repository storage moves with
python-gitlab, as an administrator's script would.

usage: python3 python_gitlab_limits_check.py <url> <root token>
The server has the repository storages `default` and `second`, and a worker running jobs.
Prints "ok" when every step behaves as on the real platform; fails with a traceback otherwise.
"""
import os
import sys
import tempfile
import time

import gitlab

url, root_token = sys.argv[1], sys.argv[2]
gl = gitlab.Gitlab(url, private_token=root_token)
gl.auth()

# ---- Plan limits (python-gitlab has no manager for them: its HTTP layer) ----
limits = gl.http_get("/application/plan_limits")
assert limits["generic_packages_max_file_size"] == 5368709120, limits
assert sorted(limits) == sorted([
    "conan_max_file_size", "generic_packages_max_file_size", "helm_max_file_size", "maven_max_file_size",
    "npm_max_file_size", "nuget_max_file_size", "pypi_max_file_size", "terraform_module_max_file_size",
]), limits
changed = gl.http_put("/application/plan_limits", query_data={"plan_name": "default", "generic_packages_max_file_size": 16})
assert changed["generic_packages_max_file_size"] == 16, changed
assert gl.http_get("/application/plan_limits", query_data={"plan_name": "premium"})["generic_packages_max_file_size"] == 5368709120
try:
    gl.http_put("/application/plan_limits", query_data={"generic_packages_max_file_size": 1})
    raise AssertionError("a PUT without plan_name was accepted")
except gitlab.exceptions.GitlabHttpError as error:
    assert error.response_code == 400 and "plan_name is missing" in str(error.error_message), error

# ---- Generic packages, under the limit and over it ----
project = gl.projects.create({"name": "limits-and-moves", "initialize_with_readme": True})
with tempfile.TemporaryDirectory() as scratch:
    small, big = os.path.join(scratch, "small.bin"), os.path.join(scratch, "big.bin")
    with open(small, "wb") as f:
        f.write(b"0123456789")
    with open(big, "wb") as f:
        f.write(b"x" * 17)
    uploaded = project.generic_packages.upload(package_name="tool", package_version="1.0.0", file_name="small.bin", path=small)
    assert uploaded.message == "201 Created", uploaded.attributes
    assert project.generic_packages.download(package_name="tool", package_version="1.0.0", file_name="small.bin") == b"0123456789"
    try:
        project.generic_packages.upload(package_name="tool", package_version="1.0.0", file_name="big.bin", path=big)
        raise AssertionError("a file over the limit was accepted")
    except gitlab.exceptions.GitlabUploadError as error:
        assert error.response_code == 400, error
        assert error.error_message == "400 Bad request - File is too large", error.error_message
packages = project.packages.list()
assert [(p.name, p.version, p.package_type) for p in packages] == [("tool", "1.0.0", "generic")], packages
files = packages[0].package_files.list()
assert [f.file_name for f in files] == ["small.bin"], files
gl.http_put("/application/plan_limits", query_data={"plan_name": "default", "generic_packages_max_file_size": 5368709120})

# ---- Repository storage moves (raw HTTP: python-gitlab 3.12 has no manager for them) ----
assert gl.projects.get(project.id).repository_storage == "default"
move = gl.http_post(f"/projects/{project.id}/repository_storage_moves", post_data={"destination_storage_name": "second"})
assert move["state"] == "scheduled" and move["project"]["id"] == project.id, move


def wait_for(path, states):
    for _ in range(600):
        record = gl.http_get(path)
        if record["state"] in states:
            return record
        time.sleep(0.05)
    raise AssertionError(f"{path} never reached {states}: {record}")


done = wait_for(f"/project_repository_storage_moves/{move['id']}", ("finished", "failed"))
assert done["state"] == "finished", done
assert gl.projects.get(project.id).repository_storage == "second"
assert [p.id for p in gl.projects.list(repository_storage="second")] == [project.id]
assert project.files.get("README.md", ref="main").file_path == "README.md"
# Bulk, back to default.
accepted = gl.http_post("/project_repository_storage_moves", post_data={"source_storage_name": "second", "destination_storage_name": "default"})
assert accepted == {"message": "202 Accepted"}, accepted
for _ in range(600):
    if gl.projects.get(project.id).repository_storage == "default":
        break
    time.sleep(0.05)
moves = gl.http_list(f"/projects/{project.id}/repository_storage_moves", get_all=True)
assert [m["destination_storage_name"] for m in moves] == ["default", "second"], moves
wait_for(f"/projects/{project.id}/repository_storage_moves/{moves[0]['id']}", ("finished",))
try:
    gl.http_post("/project_repository_storage_moves", post_data={"source_storage_name": "nowhere"})
    raise AssertionError("an unknown storage was accepted")
except gitlab.exceptions.GitlabHttpError as error:
    assert error.response_code == 400, error
assert gl.http_post("/snippet_repository_storage_moves", post_data={"source_storage_name": "default"}) == {"message": "202 Accepted"}
assert gl.http_list("/group_repository_storage_moves", get_all=True) == []

print("ok")
