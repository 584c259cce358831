"""Base64url, as JOSE and PKCE use it."""
import base64
import hashlib


def b64url(data):
    """Base64url of `data` (bytes) without padding (RFC 7515 §2, RFC 7636 Appendix A), as str."""
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def s256_challenge(verifier):
    """The PKCE S256 code_challenge of a code_verifier (RFC 7636 §4.2):
    BASE64URL(SHA256(ASCII(code_verifier)))."""
    return b64url(hashlib.sha256(verifier.encode()).digest())
