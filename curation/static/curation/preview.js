/* Card previews (curation/card_previews.py): the change page's print preview follows the form as
   the curator types (a tile's chosen picture too, and a slogan card's answer checks), list
   thumbnails, and the translation editor's rows. A static file: the Content-Security-Policy
   allows no inline script. */
(function () {
  "use strict";

  var DELAY = 300; // ms after the last keystroke: one request per pause, not per key

  function csrfToken(form) {
    var input = form.querySelector("input[name=csrfmiddlewaretoken]");
    return input ? input.value : "";
  }

  function figureFor(box, language, side, width, height) {
    var selector = 'figure[data-lang="' + language + '"][data-side="' + side + '"]';
    var figure = box.querySelector(selector);
    if (figure) { return figure; }
    figure = document.createElement("figure");
    figure.className = "card-preview-card";
    figure.dataset.lang = language;
    figure.dataset.side = side;
    var img = document.createElement("img");
    img.width = width;
    img.height = height;
    img.alt = "";
    var caption = document.createElement("figcaption");
    caption.textContent = language.toUpperCase() + " · " + side;
    figure.appendChild(img);
    figure.appendChild(caption);
    box.appendChild(figure);
    return figure;
  }

  function showProblems(area, problems, drawn) {
    area.textContent = "";
    if (!problems.length) {
      if (!drawn) { return; } // no card yet (a new Sign card before its symbol and colour)
      var ok = document.createElement("p");
      ok.className = "card-preview-ok";
      ok.textContent = "Every text fits the card.";
      area.appendChild(ok);
      return;
    }
    var title = document.createElement("p");
    title.className = "card-preview-warning-title";
    title.textContent = "Does not fit";
    var list = document.createElement("ul");
    problems.forEach(function (problem) {
      var item = document.createElement("li");
      item.className = "card-preview-warning";
      item.textContent = problem.language.toUpperCase() + ": " + problem.message;
      list.appendChild(item);
    });
    area.appendChild(title);
    area.appendChild(list);
  }

  function textNode(text) { return document.createTextNode(text); }

  function element(tag, className, text) {
    var node = document.createElement(tag);
    if (className) { node.className = className; }
    if (text) { node.textContent = text; }
    return node;
  }

  /* A slogan card's answer checks (templates/admin/cards/slogancard_change_form.html), as the
     live preview's answer finds them on the card as typed. */
  function showAnswerChecks(checks) {
    var area = document.querySelector("[data-option-findings]");
    if (!area) { return; }
    area.closest("section").hidden = !checks.checked; // nothing to check yet: no empty box
    area.textContent = "";
    if (!checks.findings.length) {
      area.appendChild(element("p", "", area.dataset.none));
      return;
    }
    var list = document.createElement("ul");
    checks.findings.forEach(function (f) {
      var item = element("li", "option-finding" + (f.reason ? " option-finding-dismissed" : ""));
      item.appendChild(element("strong", "", (f.reason ? "Dismissed: " : "Open: ") + f.title));
      item.appendChild(textNode(" — "));
      item.appendChild(element("code", "", f.slogan));
      item.appendChild(textNode(", " + f.field + ": " + f.message + " "));
      if (f.reason) {
        item.appendChild(document.createElement("br"));
        item.appendChild(element("em", "", "Reason:"));
        item.appendChild(textNode(" " + f.reason));
      } else if (f.dismiss_url) {
        var link = element("a", "", "Dismiss");
        link.href = f.dismiss_url;
        link.appendChild(element("span", "visually-hidden", " " + f.title + " on " + f.slogan + " " + f.field));
        item.appendChild(link);
      } else if (f.unsaved) {
        item.appendChild(element("em", "option-finding-unsaved", "(not saved yet: save the card to dismiss it)"));
      }
      list.appendChild(item);
    });
    area.appendChild(list);
  }

  function changePage(panel) {
    var form = panel.closest("form");
    if (!form) { return; }
    var box = panel.querySelector("[data-preview-cards]");
    var area = panel.querySelector("[data-preview-problems]");
    var busy = panel.querySelector(".card-preview-busy");
    var width = parseInt(panel.dataset.width, 10);
    var firstImg = box.querySelector("img");
    var height = firstImg ? firstImg.height : Math.round(width * 88 / 63);
    var timer = null;
    var sent = 0;
    // A picture chosen in a file input goes to the server once; later requests name it by
    // the sha256 the server kept it under (input name -> {file, digest, error}).
    var pictures = {};

    function languages() {
      return Array.prototype.filter.call(
        panel.querySelectorAll("input[data-preview-language]"), function (c) { return c.checked; }
      ).map(function (c) { return c.dataset.previewLanguage; });
    }

    function refresh() {
      var data = new FormData(form);
      var files = [];
      data.forEach(function (value, name) { if (value instanceof File) { files.push(name); } });
      files.forEach(function (name) { data.delete(name); }); // pictures go once, below
      var sending = null;
      var refused = "";
      form.querySelectorAll("input[type=file]").forEach(function (input) {
        var file = input.files && input.files[0];
        var kept = pictures[input.name];
        if (!file) { delete pictures[input.name]; return; }
        if (kept && kept.file === file) {
          if (kept.digest) { data.append("_preview_picture", kept.digest); }
          refused = kept.error || refused;
          return;
        }
        data.append(input.name, file);
        sending = { name: input.name, file: file };
      });
      ["_save", "_continue", "_addanother"].forEach(function (name) { data.delete(name); });
      data.append("_preview_object_id", panel.dataset.objectId || "");
      data.append("_preview_width", String(width));
      var chosen = languages();
      chosen.forEach(function (code) { data.append("_preview_language", code); });
      var number = ++sent;
      if (busy) { busy.hidden = false; }
      panel.setAttribute("aria-busy", "true");
      fetch(panel.dataset.postUrl, {
        method: "POST", body: data, credentials: "same-origin",
        headers: { "X-CSRFToken": csrfToken(form), "Accept": "application/json" }
      }).then(function (response) {
        return response.json();
      }).then(function (answer) {
        if (sending) {
          pictures[sending.name] = { file: sending.file, digest: answer.picture || "",
                                     error: answer.picture_error || "" };
        }
        if (number !== sent) { return; } // an older answer after a newer request
        var empty = box.querySelector("[data-preview-empty]");
        if (empty && answer.previews && answer.previews.length) { empty.remove(); }
        box.querySelectorAll("figure").forEach(function (figure) {
          if (chosen.indexOf(figure.dataset.lang) < 0) { figure.remove(); }
        });
        (answer.previews || []).forEach(function (shot) {
          var figure = figureFor(box, shot.language, shot.side, width, height);
          var img = figure.querySelector("img");
          if (img.getAttribute("src") === shot.url) { return; }
          // Load first, then swap: the old picture stays until the new one is there.
          var next = new Image();
          next.onload = function () {
            if (number !== sent) { return; }
            img.src = shot.url;
            img.alt = shot.alt;
          };
          next.src = shot.url;
        });
        // A language whose deck leaves the card out says so instead of a picture.
        box.querySelectorAll("[data-absent-lang]").forEach(function (note) { note.remove(); });
        (answer.absent || []).forEach(function (gone) {
          box.querySelectorAll("figure[data-lang='" + gone.language + "']").forEach(function (figure) { figure.remove(); });
          var note = document.createElement("p");
          note.className = "card-preview-absent";
          note.setAttribute("data-absent-lang", gone.language);
          var code = document.createElement("strong");
          code.textContent = gone.language.toUpperCase() + ":";
          note.appendChild(code);
          note.appendChild(document.createTextNode(" " + gone.message));
          box.appendChild(note);
        });
        // A language whose markets' decks do not all hold the card names the ones that do.
        box.querySelectorAll("[data-decks-lang]").forEach(function (note) { note.remove(); });
        (answer.decks || []).forEach(function (deck) {
          var note = document.createElement("p");
          note.className = "card-preview-decks";
          note.setAttribute("data-decks-lang", deck.language);
          var code = document.createElement("strong");
          code.textContent = deck.language.toUpperCase() + ":";
          note.appendChild(code);
          note.appendChild(document.createTextNode(" " + deck.message));
          box.appendChild(note);
        });
        if ((answer.absent || []).length) {
          var placeholder = box.querySelector("[data-preview-empty]");
          if (placeholder) { placeholder.remove(); }
        }
        showProblems(area, answer.problems || [], (answer.previews || []).length > 0);
        if (answer.answer_checks) { showAnswerChecks(answer.answer_checks); }
        var pictureError = answer.picture_error || refused;
        if (pictureError) {
          area.insertBefore(element("p", "card-preview-warning", pictureError), area.firstChild);
        }
        if (answer.notice) {
          box.querySelectorAll("figure").forEach(function (figure) { figure.remove(); });
          var hint = box.querySelector("[data-preview-empty]");
          if (!hint) {
            hint = document.createElement("p");
            hint.className = "card-preview-empty";
            hint.setAttribute("data-preview-empty", "");
            box.appendChild(hint);
          }
          hint.textContent = answer.notice;
        }
        if (answer.error) { showProblems(area, [{ language: "–", message: answer.error }], false); }
      }).catch(function () {
        if (number === sent) {
          showProblems(area, [{ language: "–", message: "The preview could not be updated (network or server error)." }], false);
        }
      }).finally(function () {
        if (number === sent) {
          if (busy) { busy.hidden = true; }
          panel.removeAttribute("aria-busy");
        }
      });
    }

    function later(event) {
      if (event.target.closest && event.target.closest("#card-preview")) { return; }
      window.clearTimeout(timer);
      timer = window.setTimeout(refresh, DELAY);
    }

    form.addEventListener("input", later);
    form.addEventListener("change", later);
    // The admin's autocomplete fields (select2) announce a choice through jQuery only.
    if (window.django && window.django.jQuery) {
      window.django.jQuery(form).on("change", "select", later);
    }
    panel.querySelectorAll("input[data-preview-language]").forEach(function (box) {
      box.addEventListener("change", refresh);
    });
    if (!panel.dataset.objectId) { refresh(); } // a new card: draw what the form holds
  }

  /* The translation editor: a row with data-card-preview="<url>" gets its card's preview. */
  function editorRows() {
    document.querySelectorAll("[data-card-preview]").forEach(function (row) {
      if (!row.dataset.cardPreview || row.querySelector(".card-preview-row")) { return; }
      var cell = row.querySelector("[data-card-preview-slot]") || row.firstElementChild;
      if (!cell) { return; }
      var holder = document.createElement("span");
      holder.className = "card-thumb card-preview-row";
      holder.tabIndex = 0;
      holder.setAttribute("role", "img");
      holder.setAttribute("aria-label", row.dataset.cardPreviewLabel || "Card preview");
      var small = document.createElement("img");
      small.src = row.dataset.cardPreview + "&width=88"; // shown at half: sharp on dense screens
      small.alt = "";
      small.width = 44;
      small.height = 61;
      small.loading = "lazy";
      var large = document.createElement("img");
      large.className = "card-thumb-large";
      large.src = row.dataset.cardPreview + "&width=240";
      large.alt = row.dataset.cardPreviewLabel || "";
      large.width = 240;
      large.height = 335;
      large.loading = "lazy";
      holder.appendChild(small);
      holder.appendChild(large);
      cell.appendChild(holder);
    });
  }

  function start() {
    var panel = document.getElementById("card-preview");
    if (panel) { changePage(panel); }
    editorRows();
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
