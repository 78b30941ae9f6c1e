/* The translation editor (templates/admin/cards/translate.html):
   - "copy to EN" puts the German source into the box (names and brands that stay);
   - "use" takes a suggestion from the translation memory into the box;
   - as the translator types, the server's own checks run on the unsaved text
     (curation/editor_live.py, debounced) and their findings replace the row's; the card of the
     text being edited is drawn large below its row, with "Does not fit" before saving.
   Nothing is saved until the page is saved. A static file: the CSP allows no inline script. */
(function () {
  "use strict";

  var DELAY = 400; // ms after the last keystroke: one request per pause, not per key
  var table = null;
  var panel = null;   // the one card row, moved below the row being edited
  var timers = {};
  var sent = {};
  var last = {};      // unit -> the last answer, to draw the card again on focus

  function setBox(target, value) {
    target.value = value;
    target.dispatchEvent(new Event("input", { bubbles: true }));
    target.focus();
  }

  document.addEventListener("click", function (event) {
    var button = event.target.closest("button.copy-source, button.take-suggestion");
    if (!button) { return; }
    var target = document.getElementById(button.dataset.target);
    if (!target) { return; }
    if (button.classList.contains("take-suggestion")) {
      setBox(target, button.dataset.text);
      return;
    }
    var source = document.getElementById(button.dataset.source);
    if (source) { setBox(target, source.textContent.trim()); }
  });

  function csrfToken() {
    var input = document.querySelector("input[name=csrfmiddlewaretoken]");
    return input ? input.value : "";
  }

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) { node.className = className; }
    if (text !== undefined) { node.textContent = text; }
    return node;
  }

  function findingItem(unit, check, title, message) {
    var item = el("li", "finding finding-" + check);
    var icon = el("span", "icon", "⚠");
    icon.setAttribute("aria-hidden", "true");
    item.appendChild(icon);
    item.appendChild(document.createTextNode(" "));
    item.appendChild(el("b", "", title));
    item.appendChild(document.createTextNode(": " + message + " "));
    if (table.dataset.dismissUrl && check !== "refused") {
      var link = el("a", "dismiss", "dismiss…");
      link.href = table.dataset.dismissUrl + "?unit=" + encodeURIComponent(unit) +
        "&check=" + encodeURIComponent(check) + "&next=" + encodeURIComponent(table.dataset.nextUrl);
      item.appendChild(link);
    }
    return item;
  }

  function showFindings(unit, answer, text, typed) {
    var area = document.getElementById("checks-" + unit);
    if (!area) { return; }
    var fresh = el("div");
    var all = (answer.refused || []).map(function (m) {
      return { check: "refused", title: "not saved as it is", message: m };
    }).concat(answer.findings || []);
    if (all.length) {
      var list = el("ul", "findings");
      all.forEach(function (f) { list.appendChild(findingItem(unit, f.check, f.title, f.message)); });
      fresh.appendChild(list);
    } else if (text.trim()) {
      fresh.appendChild(el("span", "no-findings", "✓ no problems found"));
    }
    if (typed) { fresh.appendChild(el("span", "live-note", "checked as typed, not saved yet")); }
    // Replace only when something changed: a polite region is read out on every change.
    if (area.innerHTML !== fresh.innerHTML) { area.innerHTML = fresh.innerHTML; }
  }

  function cardPanel() {
    if (panel) { return panel; }
    panel = el("tr", "card-live");
    var cell = el("td");
    cell.colSpan = 5;
    var heading = el("p", "card-live-title", "");
    var status = el("div", "card-live-status");
    var cards = el("div", "card-live-cards");
    cell.appendChild(heading);
    cell.appendChild(status);
    cell.appendChild(cards);
    panel.appendChild(cell);
    return panel;
  }

  function showCard(row, unit, answer) {
    var box = cardPanel();
    if (row.nextElementSibling !== box) { row.parentNode.insertBefore(box, row.nextSibling); }
    box.dataset.unit = unit;
    var label = row.querySelector("code");
    box.querySelector(".card-live-title").textContent =
      "The card of " + (label ? label.textContent : unit) + " with the text in the box (" +
      table.dataset.language.toUpperCase() + ", not saved yet):";
    var status = box.querySelector(".card-live-status");
    status.textContent = "";
    var problems = answer.problems || [];
    if (problems.length) {
      status.className = "card-live-status card-live-bad";
      status.appendChild(el("b", "", "⚠ Does not fit"));
      var list = el("ul");
      problems.forEach(function (p) { list.appendChild(el("li", "", p.replace(/^Does not fit: /, ""))); });
      status.appendChild(list);
    } else if ((answer.previews || []).length) {
      status.className = "card-live-status card-live-ok";
      status.appendChild(el("b", "", "✓ Every text fits the card."));
    }
    var cards = box.querySelector(".card-live-cards");
    (answer.previews || []).forEach(function (shot, i) {
      var figure = cards.children[i];
      if (!figure) {
        figure = el("figure", "card-preview-card");
        var img = el("img");
        img.width = answer.width;
        img.height = answer.height;
        figure.appendChild(img);
        figure.appendChild(el("figcaption"));
        cards.appendChild(figure);
      }
      var image = figure.querySelector("img");
      figure.querySelector("figcaption").textContent = table.dataset.language.toUpperCase() + " · " + shot.side;
      if (image.getAttribute("src") === shot.url) { return; }
      var next = new Image(); // load first, then swap: the old card stays until the new one is there
      next.onload = function () { if (box.dataset.unit === unit) { image.src = shot.url; image.alt = shot.alt; } };
      next.src = shot.url;
    });
    while (cards.children.length > (answer.previews || []).length) { cards.lastChild.remove(); }
  }

  function check(box) {
    var row = box.closest("tr[data-unit]");
    if (!row) { return; }
    var unit = row.dataset.unit;
    var data = new FormData();
    data.append("unit", unit);
    data.append("text", box.value);
    var state = row.querySelector("select");
    if (state) { data.append("state", state.value); }
    var number = (sent[unit] || 0) + 1;
    sent[unit] = number;
    row.setAttribute("aria-busy", "true");
    fetch(table.dataset.checkUrl, {
      method: "POST", body: data, credentials: "same-origin",
      headers: { "X-CSRFToken": csrfToken(), "Accept": "application/json" }
    }).then(function (response) {
      return response.json();
    }).then(function (answer) {
      if (sent[unit] !== number) { return; } // an older answer after a newer request
      if (answer.error) {
        showFindings(unit, { refused: [answer.error] }, box.value, true);
        return;
      }
      last[unit] = answer;
      showFindings(unit, answer, box.value, box.value !== box.defaultValue);
      if (document.activeElement === box || (panel && panel.dataset.unit === unit)) {
        showCard(row, unit, answer);
      }
    }).catch(function () {
      if (sent[unit] === number) {
        showFindings(unit, { refused: ["The checks could not run (network or server error)."] }, box.value, true);
      }
    }).finally(function () {
      if (sent[unit] === number) { row.removeAttribute("aria-busy"); }
    });
  }

  function later(box) {
    var unit = box.closest("tr[data-unit]").dataset.unit;
    window.clearTimeout(timers[unit]);
    timers[unit] = window.setTimeout(function () { check(box); }, DELAY);
  }

  function start() {
    table = document.getElementById("editor");
    if (!table || !table.dataset.checkUrl) { return; }
    table.addEventListener("input", function (event) {
      if (event.target.matches("textarea")) { later(event.target); }
    });
    table.addEventListener("change", function (event) {
      if (event.target.matches("select")) {
        var box = event.target.closest("tr").querySelector("textarea");
        if (box) { later(box); }
      }
    });
    table.addEventListener("focusin", function (event) {
      if (!event.target.matches("textarea")) { return; }
      var row = event.target.closest("tr[data-unit]");
      var unit = row.dataset.unit;
      if (last[unit]) { showCard(row, unit, last[unit]); } else { check(event.target); }
    });
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
