# The translation editor's search on trigram indexes (cards/search.py): FTS5 tables kept by
# triggers on SQLite, pg_trgm GIN indexes on PostgreSQL.

from django.db import migrations

from cards.search import create_indexes, drop_indexes


class Migration(migrations.Migration):

    dependencies = [
        ('cards', '0012_translation_findings'),
    ]

    operations = [
        migrations.RunPython(create_indexes, drop_indexes, elidable=False),
    ]
