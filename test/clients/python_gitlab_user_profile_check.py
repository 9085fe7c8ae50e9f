"""Drives a running Quarry's user statuses, email addresses and GPG keys with python-gitlab, then
pushes a commit signed by GnuPG with the git CLI and reads its signature.

usage: python3 python_gitlab_user_profile_check.py <url> <root token>
Prints "ok" when every step behaves as on the real platform; fails with a traceback otherwise.
"""
import os
import subprocess
import sys
import tempfile
from urllib.parse import urlsplit, urlunsplit

import gitlab

from checks import refused

url, root_token = sys.argv[1], sys.argv[2]
gl = gitlab.Gitlab(url, private_token=root_token)
gl.auth()

user = gl.users.create({"email": "profile-check@example.com", "username": "profile-check", "name": "Profile Check", "password": "correct-horse-9", "skip_confirmation": True})
token = user.personal_access_tokens.create({"name": "check", "scopes": ["api"]}).token
me = gitlab.Gitlab(url, private_token=token)
me.auth()

# The caller's status, and the same status read by another user.
status = me.user.status.get()
assert status.emoji is None and status.message is None and status.message_html == "", status.attributes
status.emoji = "coffee"
status.message = "Brewing"
status.save()
assert me.user.status.get().message == "Brewing"
seen = gl.users.get(user.id).status.get()
assert (seen.emoji, seen.message, seen.availability) == ("coffee", "Brewing", "not_set"), seen.attributes

# Further addresses: the caller's own, and an administrator's for the user.
email = me.user.emails.create({"email": "profile-second@example.com"})
assert email.email == "profile-second@example.com" and email.confirmed_at is None, email.attributes
assert [e.id for e in me.user.emails.list()] == [email.id]
refused(lambda: me.user.emails.create({"email": "profile-check@example.com"}), 400, {"email": ["has already been taken"]})
given = user.emails.create({"email": "profile-third@example.com", "skip_confirmation": True})
assert given.confirmed_at is not None, given.attributes
assert {e.email for e in user.emails.list()} == {"profile-second@example.com", "profile-third@example.com"}
user.emails.delete(given.id)
email.delete()
assert me.user.emails.list() == []

# A key made by GnuPG, added by the user; a commit it signs, pushed with the git CLI.
project = me.projects.create({"name": "signed", "initialize_with_readme": True})
with tempfile.TemporaryDirectory() as scratch:
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": scratch,
        "GNUPGHOME": os.path.join(scratch, "gnupg"),
        "GIT_TERMINAL_PROMPT": "0",
        "GIT_AUTHOR_NAME": "Profile Check",
        "GIT_AUTHOR_EMAIL": "profile-check@example.com",
        "GIT_COMMITTER_NAME": "Profile Check",
        "GIT_COMMITTER_EMAIL": "profile-check@example.com",
    }
    os.mkdir(env["GNUPGHOME"], 0o700)
    gpg = ["gpg", "--batch", "--quiet", "--pinentry-mode", "loopback", "--passphrase", ""]
    subprocess.run(gpg + ["--quick-gen-key", "Profile Check <profile-check@example.com>", "ed25519", "sign", "never"], check=True, env=env, capture_output=True)
    public_key = subprocess.run(gpg + ["--armor", "--export", "profile-check@example.com"], check=True, env=env, capture_output=True, text=True).stdout
    key = me.user.gpgkeys.create({"key": public_key})
    assert key.key == public_key.strip(), key.attributes
    assert [k.id for k in user.gpgkeys.list()] == [key.id]
    refused(lambda: me.user.gpgkeys.create({"key": "not a key"}), 400, {"key": ["is invalid. A valid public GPG key begins with '-----BEGIN PGP PUBLIC KEY BLOCK-----' and ends with '-----END PGP PUBLIC KEY BLOCK-----'"]})

    parts = urlsplit(url)
    remote = urlunsplit((parts.scheme, f"profile-check:{token}@{parts.netloc}", f"{parts.path}/{project.path_with_namespace}.git", "", ""))
    checkout = os.path.join(scratch, "checkout")
    subprocess.run(["git", "clone", "--quiet", remote, checkout], check=True, env=env)
    with open(os.path.join(checkout, "signed.txt"), "w") as f:
        f.write("signed\n")
    subprocess.run(["git", "add", "signed.txt"], check=True, cwd=checkout, env=env)
    subprocess.run(["git", "-c", "user.signingkey=profile-check@example.com", "commit", "--quiet", "-S", "-m", "Signed"], check=True, cwd=checkout, env=env)
    subprocess.run(["git", "push", "--quiet", "origin", "HEAD:main"], check=True, cwd=checkout, env=env)
    sha = subprocess.run(["git", "rev-parse", "HEAD"], check=True, cwd=checkout, env=env, capture_output=True, text=True).stdout.strip()
    subprocess.run(["gpgconf", "--kill", "all"], env=env)

signature = project.commits.get(sha).signature()
assert signature["signature_type"] == "PGP" and signature["verification_status"] == "verified", signature
assert signature["gpg_key_id"] == key.id and signature["gpg_key_user_email"] == "profile-check@example.com", signature
assert signature["commit_source"] == "gitaly", signature
unsigned = project.commits.list()[-1]
refused(lambda: unsigned.signature(), 404, "404 Signature Not Found")

me.user.gpgkeys.delete(key.id)
assert me.user.gpgkeys.list() == []

print("ok")
