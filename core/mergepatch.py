"""RFC 7386 JSON merge patch."""

from __future__ import annotations


def merge_patch(target: object, patch: object) -> object:
    """Apply ``patch`` to ``target`` and return the result; neither argument is modified."""
    if not isinstance(patch, dict):
        return patch
    result = dict(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = merge_patch(result.get(key), value)
    return result
