"""Drives a running Quarry's pages domains with python-gitlab, as a deploy tool would.

usage: python3 python_gitlab_pages_check.py <url> <root token> <pages host> <cert file> <key file> <other key file>
Prints "ok" when every step behaves as on the real platform; fails with a traceback otherwise.
"""
import pathlib
import sys

import gitlab

url, root_token, pages_host, cert_file, key_file, other_key_file = sys.argv[1:7]
gl = gitlab.Gitlab(url, private_token=root_token)
gl.auth()

CERT = pathlib.Path(cert_file).read_text()
KEY = pathlib.Path(key_file).read_text()
OTHER_KEY = pathlib.Path(other_key_file).read_text()

group = gl.groups.create({"name": "Pages", "path": "pages-check"})
project = gl.projects.create({"name": "site", "namespace_id": group.id})

plain = project.pagesdomains.create({"domain": "www.pages-check.example.com"})
assert plain.url == "http://www.pages-check.example.com", plain.attributes
assert plain.verified is False and len(plain.verification_code) == 32 and plain.enabled_until is None, plain.attributes
assert not hasattr(plain, "certificate") or "certificate" not in plain.attributes

secure = project.pagesdomains.create({"domain": "secure.pages-check.example.com", "certificate": CERT, "key": KEY})
assert secure.url == "https://secure.pages-check.example.com", secure.attributes
assert secure.certificate["subject"] == "/CN=test-certificate", secure.certificate
assert secure.certificate["expired"] is False
assert secure.certificate["certificate"] == CERT
assert secure.certificate["certificate_text"].startswith("Certificate:\n    Data:\n        Version: 3 (0x2)\n")
assert "key" not in secure.attributes and "PRIVATE KEY" not in str(secure.attributes)

listed = project.pagesdomains.list(all=True)
assert [d.domain for d in listed] == ["secure.pages-check.example.com", "www.pages-check.example.com"], [d.domain for d in listed]

fetched = project.pagesdomains.get("www.pages-check.example.com")
fetched.certificate = CERT
fetched.key = KEY
fetched.save()
fetched = project.pagesdomains.get("www.pages-check.example.com")
assert fetched.url == "https://www.pages-check.example.com" and fetched.certificate["subject"] == "/CN=test-certificate", fetched.attributes

# Empty certificate and key remove the certificate.
fetched.certificate = ""
fetched.key = ""
fetched.save()
fetched = project.pagesdomains.get("www.pages-check.example.com")
assert fetched.url == "http://www.pages-check.example.com" and "certificate" not in fetched.attributes, fetched.attributes

instance = gl.pagesdomains.list(all=True)
by_name = {d.domain: d for d in instance}
assert by_name["secure.pages-check.example.com"].project_id == project.id
assert set(by_name["secure.pages-check.example.com"].certificate_expiration) == {"expired", "expiration"}
assert "certificate_expiration" not in by_name["www.pages-check.example.com"].attributes


def refused(data, code, text):
    try:
        project.pagesdomains.create(data)
    except gitlab.exceptions.GitlabError as e:
        assert e.response_code == code, (e.response_code, str(e))
        assert text in str(e), str(e)
        return
    raise AssertionError(f"a domain was created from {data}")


refused({"domain": "www.pages-check.example.com"}, 400, "has already been taken")
refused({"domain": "bad.pages-check.example.com", "certificate": CERT, "key": OTHER_KEY}, 400, "doesn't match the certificate")
refused({"domain": "bad.pages-check.example.com", "certificate": "nope", "key": KEY}, 400, "must be a valid PEM certificate")
refused({"domain": f"blog.{pages_host}"}, 400, f"*.{pages_host} is restricted")
refused({"domain": "half.pages-check.example.com", "certificate": CERT}, 400, "certificate, key provide all or none of parameters")

secure.delete()
try:
    project.pagesdomains.get("secure.pages-check.example.com")
    raise AssertionError("a deleted domain was found")
except gitlab.exceptions.GitlabGetError as e:
    assert e.response_code == 404 and "404 PagesDomain Not Found" in str(e), str(e)
assert [d.domain for d in project.pagesdomains.list(all=True)] == ["www.pages-check.example.com"]

print("ok")
