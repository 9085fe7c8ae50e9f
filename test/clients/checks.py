"""What the python-gitlab check scripts share."""
import gitlab


def refused(call, status, message):
    """Calls and expects the platform's refusal: this status and this error message."""
    try:
        call()
    except gitlab.exceptions.GitlabError as e:
        assert e.response_code == status, (e.response_code, e.error_message)
        assert e.error_message == message, e.error_message
        return
    raise AssertionError("the call succeeded")
