import pytest

# The journal contract's module is not a test file: its assertions say what differed only if
# pytest rewrites them, which it does for a module registered before anything imports it (the
# doctest collector included).
pytest.register_assert_rewrite("tests.journal_contract")
