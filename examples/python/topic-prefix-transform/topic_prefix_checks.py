"""The checks of topic_prefix's setting, apart from its bindings so that
plain Python can test them."""

ALLOWED = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")


def prefix_problem(prefix: str) -> str | None:
    """Why `prefix` cannot start a Kafka topic name, or None."""
    if not prefix:
        return "must not be empty"
    bad = sorted(set(prefix) - ALLOWED)
    if bad:
        return f"holds {''.join(bad)!r}: a topic name takes ASCII letters, digits, '.', '_' and '-'"
    return None
