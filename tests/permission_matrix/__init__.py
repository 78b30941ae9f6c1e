"""The permission matrix: every write checks its permission, every admin URL × every role × GET and POST.

The admin URLs come from the URL resolver: every page of a model admin (a new model's too)
is in the matrix without editing these tests — its permission follows from the page's kind
(list, add, change, delete, history, revert, import, export) and the model. A page that is
no model's fails ``test_every_admin_page_is_in_the_matrix`` until ``PAGES`` (cases.py) says what it
needs (one of the README table's rows). What each role may do is the README's roles table (section *Roles*):
``README_TABLE`` (rows.py) is that table, a test parses the README and compares, and another
compares it with the permissions the two groups really hold — so the documentation, the
groups and the behaviour cannot drift apart.

Each case sends what a browser would send (the form as the page renders it for a
superuser, with a real change in it) through a client that enforces CSRF with a valid
token, i.e. a forged request that only the permission check can stop. An allowed role gets
200/302 and, where the request writes, the database changes; a refused role gets 403 (or
the login page, for everyone without staff status) and the content, history, release, user
and group tables are exactly as before (compared by a checksum of every row; releases, which
the database keeps from changing, by count and last id).

Cost: the catalogue is loaded once for the package (conftest.py; each test a savepoint, each
case another) and each role logs in once, so the ~1,500 requests take about 25 s of CPU.
"""
