"""A list cell keeps words whole; only a long URL or path in it may break anywhere."""

from curation.list_cells import cell_text


def test_a_long_url_in_a_source_is_marked_breakable_and_words_are_not():
    html = cell_text("Herstellerangabe: https://www.example.org/produkte/riegel/standard 51 g",
                     limit=200)
    assert '<span class="breakable">https://www.example.org/produkte/riegel/standard</span>' in html
    assert html.startswith("Herstellerangabe: ") and html.endswith(" 51 g")


def test_a_cell_is_cut_to_its_limit_and_escapes_what_a_curator_typed():
    html = cell_text("<b>Laut</b> " + "sehr " * 30, limit=20)
    assert "<b>" not in html and "&lt;b&gt;Laut&lt;/b&gt;" in html
    assert html.endswith("…")


def test_short_tokens_with_a_dot_stay_as_they_are():
    assert cell_text("ca. 58 g (Gr. M)") == "ca. 58 g (Gr. M)"
