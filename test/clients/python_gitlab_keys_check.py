"""Drives a running Quarry's SSH keys and deploy keys with python-gitlab, as an integration would.

usage: python3 python_gitlab_keys_check.py <url> <root token> <public key> <public key> <public key>
The public keys are fresh OpenSSH lines ("type body comment"), made by the caller.
Prints "ok" when every step behaves as on the real platform; fails with a traceback otherwise.
"""
import base64
import hashlib
import sys
from urllib.parse import urlparse

import gitlab

from checks import refused

url, root_token = sys.argv[1], sys.argv[2]
mine, theirs, deploy = sys.argv[3:6]
host = urlparse(url).hostname
gl = gitlab.Gitlab(url, private_token=root_token)
gl.auth()


def bare(key):
    return " ".join(key.split()[:2])


def fingerprints(key):
    wire = base64.b64decode(key.split()[1])
    sha256 = "SHA256:" + base64.b64encode(hashlib.sha256(wire).digest()).decode().rstrip("=")
    md5 = ":".join(f"{b:02x}" for b in hashlib.md5(wire).digest())
    return sha256, md5



# The caller's own keys: the comment gives way to the owner's name and the host.
key = gl.user.keys.create({"title": "Laptop", "key": mine})
assert key.title == "Laptop" and key.expires_at is None, key.attributes
assert key.key == f"{bare(mine)} {gl.user.name} ({host})", key.key
assert [k.id for k in gl.user.keys.list(all=True)] == [key.id]
assert gl.user.keys.get(key.id).title == "Laptop"
refused(lambda: gl.user.keys.create({"title": "Again", "key": mine}), 400, {"fingerprint": ["has already been taken"]})
refused(
    lambda: gl.user.keys.create({"title": "Broken", "key": "ssh-rsa AAAA"}),
    400,
    {"fingerprint": ["cannot be generated"], "key": ["type is forbidden. Must be RSA, DSA, ECDSA, or ED25519"]},
)

# Another user's keys, written by an administrator.
user = gl.users.create({"username": "key-holder", "name": "Key Holder", "email": "key-holder@example.com", "password": "correct-horse-9", "skip_confirmation": True})
given = user.keys.create({"title": "Given", "key": theirs})
assert given.key == f"{bare(theirs)} Key Holder ({host})", given.key
assert [k.title for k in user.keys.list(all=True)] == ["Given"]
assert user.keys.get(given.id).id == given.id

# Administrators look any key up, by id or fingerprint.
looked_up = gl.keys.get(key.id)
assert looked_up.user["username"] == gl.user.username, looked_up.attributes
sha256, md5 = fingerprints(theirs)
for fingerprint in (sha256, md5):
    found = gl.keys.get(fingerprint=fingerprint)
    assert found.id == given.id and found.user["id"] == user.id, found.attributes
refused(lambda: gl.keys.get(fingerprint="not-a-fingerprint"), 400, "Failed to return the key")
user.keys.delete(given.id)
refused(lambda: gl.keys.get(fingerprint=sha256), 404, "404 Key Not Found")

# Deploy keys: added to a project, renamed, enabled on another, removed from both.
app = gl.projects.create({"name": "keys-app"})
lib = gl.projects.create({"name": "keys-lib"})
dk = app.keys.create({"title": "CI", "key": deploy, "can_push": True})
assert dk.can_push is True and dk.key == deploy, dk.attributes
assert [k.id for k in app.keys.list(all=True)] == [dk.id]
dk.title = "CI runner"
dk.can_push = False
dk.save()
again = app.keys.get(dk.id)
assert again.title == "CI runner" and again.can_push is False, again.attributes
lib.keys.enable(dk.id)
assert [k.title for k in lib.keys.list(all=True)] == ["CI runner"]
assert dk.id in [k.id for k in gl.deploykeys.list(all=True)]
deploy_sha256, _ = fingerprints(deploy)
assert [p["project_id"] for p in gl.keys.get(fingerprint=deploy_sha256).deploy_keys_projects] == [app.id, lib.id]
refused(lambda: app.keys.create({"title": "Mine", "key": mine}), 400, {"deploy_key.fingerprint": ["has already been taken"]})
refused(lambda: app.keys.get(999999), 404, "404 Not found")
app.keys.delete(dk.id)
assert app.keys.list(all=True) == []
lib.keys.delete(dk.id)
refused(lambda: gl.keys.get(fingerprint=deploy_sha256), 404, "404 Key Not Found")

# Gone from the system, the key may be added anew; and a user key goes when deleted.
assert app.keys.create({"title": "Back", "key": deploy}).title == "Back"
key.delete()
assert gl.user.keys.list(all=True) == []

print("ok")
