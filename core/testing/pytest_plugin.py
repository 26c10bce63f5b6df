"""pytest plugin for plugin authors (placeholder; the ecosystem engineer replaces it)."""
