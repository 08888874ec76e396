import pytest

# The journal contract and the server fixtures' module are not test files: their assertions say
# what differed only if pytest rewrites them, which it does for a module registered before
# anything imports it (the doctest collector included). The server's module was conftest.py,
# which pytest rewrites by itself.
pytest.register_assert_rewrite("tests.support.journal_contract", "tests.support.server")
