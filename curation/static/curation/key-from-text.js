/* A new card's key, filled from its German text as the curator types, by the same rule as
   cards.text.make_key (tests/test_key_from_text.py runs both on the same tricky texts):
   lowercase; ä→ae, ö→oe, ü→ue, ß→ss; accents dropped (é→e); every run of anything else
   one hyphen; at most 60 characters, cut at a hyphen. A key the curator typed over is left
   alone. A saved card's key is read-only (no input to fill), in the form and on the server. */
"use strict";
(function () {
  var FOLDS = [["ä", "ae"], ["ö", "oe"], ["ü", "ue"], ["ß", "ss"]];
  var MAX_LENGTH = 60;

  function makeKey(text, maxLength) {
    var limit = maxLength || MAX_LENGTH;
    var slug = text.trim().toLowerCase();
    FOLDS.forEach(function (fold) { slug = slug.split(fold[0]).join(fold[1]); });
    slug = slug.normalize("NFKD").replace(/[^\x00-\x7f]/g, "");
    slug = slug.replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "");
    if (slug.length > limit) {
      slug = slug.slice(0, limit);
      var cut = slug.lastIndexOf("-");
      if (cut >= 0) { slug = slug.slice(0, cut); }
    }
    return slug;
  }
  window.kartothekMakeKey = makeKey;

  function wire(keyInput) {
    var prefix = keyInput.name.slice(0, -"key".length);
    var form = keyInput.form;
    if (!form || keyInput.readOnly) { return; }
    var source = form.querySelector('[name="' + prefix + 'text"], [name="' + prefix + 'name"]');
    if (!source) { return; }
    // Filled automatically while it is empty or still what the text gives.
    var follows = keyInput.value === "" || keyInput.value === makeKey(source.value);
    keyInput.addEventListener("input", function () {
      follows = keyInput.value === "";
    });
    source.addEventListener("input", function () {
      if (follows) { keyInput.value = makeKey(source.value); }
    });
    keyInput.dataset.keyFromText = prefix + (source.name.endsWith("name") ? "name" : "text");
  }

  function wireAll() {
    document.querySelectorAll('form input[type="text"][name$="key"]').forEach(function (input) {
      if (input.name === "key" || /-key$/.test(input.name)) { wire(input); }
    });
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", wireAll);
  } else {
    wireAll();
  }
})();
