/* Kartothek play pages: show the room's region, swap it for a new version, post actions.
 *
 * No rules live here: the page shows what the server rendered from the seat's view, and a
 * button carries the exact legal action the server listed. The script only
 *  - learns of each new version through play-link.js (the event stream, polls while the stream
 *    is not heard, "Reconnecting…" while the network is gone) and then fetches the region's
 *    HTML and swaps it in (focus and scroll kept);
 *  - POSTs a button's action as JSON with a fresh id, the version and the CSRF token (a move
 *    that cannot be sent says so);
 *  - keeps the screen awake during a game where the browser offers a Wake Lock;
 *  - shows its notices (a refused move, a second tab, the connection) where no button is.
 */
(function () {
  "use strict";

  var REQUEST_TIMEOUT_MS = 8000;  // a request with no answer by then has failed
  var live = document.querySelector("[data-live]");
  var toast = document.getElementById("toast");
  var announce = document.getElementById("announce");

  function csrfToken() {
    var meta = document.querySelector('meta[name="csrf-token"]');
    return meta ? meta.content : "";
  }

  // crypto.randomUUID needs a secure context; phones on a LAN often open plain http.
  function freshId() {
    if (window.crypto && crypto.randomUUID) {
      try { return crypto.randomUUID(); } catch (e) { /* not a secure context */ }
    }
    var bytes = new Uint8Array(16);
    (window.crypto || window.msCrypto).getRandomValues(bytes);
    return Array.prototype.map.call(bytes, function (b) {
      return ("0" + b.toString(16)).slice(-2);
    }).join("");
  }

  function showToast(message) {
    if (!toast) return;
    toast.textContent = message;
    toast.hidden = false;
    clearTimeout(showToast.timer);
    showToast.timer = setTimeout(function () { toast.hidden = true; }, 5000);
  }

  // The extra-tiles form: show only the chosen game's options, warn on an even Sign round count.
  function setUpOpenRoom() {
    var form = document.querySelector("[data-open-room]");
    if (!form) return;
    function sync() {
      var game = (form.querySelector('input[name="game"]:checked') || {}).value;
      var language = (form.querySelector('select[name="language"]') || {}).value;
      form.querySelectorAll("[data-game-options]").forEach(function (fieldset) {
        var shown = fieldset.getAttribute("data-game-options") === game;
        fieldset.hidden = !shown;
        fieldset.disabled = !shown;
      });
      // English Slogan: the market's deck (the releases are named "en-GB", "en-US").
      var edition = language;
      form.querySelectorAll("[data-market-for]").forEach(function (row) {
        var on = game === "slogan" && row.getAttribute("data-market-for") === language;
        var select = row.querySelector("select");
        row.hidden = !on;
        select.disabled = !on;
        if (on && select.value) edition = language + "-" + select.value;
      });
      var release = form.querySelector("[data-releases]");
      if (release) {
        release.querySelectorAll("option[data-game]").forEach(function (option) {
          var fits = option.dataset.game === game && option.dataset.language === edition;
          option.hidden = !fits;
          option.disabled = !fits;
          if (!fits && option.selected) release.value = "latest";
        });
      }
      var rounds = form.querySelector("[data-odd-warning]");
      var warning = form.querySelector("[data-odd-warning-text]");
      if (rounds && warning) {
        var byRounds = (form.querySelector('input[name="sign_length"]:checked') || {}).value === "rounds";
        warning.hidden = !(byRounds && rounds.value && parseInt(rounds.value, 10) % 2 === 0);
      }
    }
    form.addEventListener("change", sync);
    form.addEventListener("input", sync);
    sync();
    // A table-only room: the opener is no player, so no name is needed here.
    var tableOnly = form.querySelector("[data-table-only]");
    var name = form.querySelector('input[name="name"]');
    var passAndPlay = form.querySelector('input[name="pass_and_play"]');
    if (tableOnly && name) {
      var syncTable = function () {
        name.required = !tableOnly.checked;
        if (passAndPlay) {
          passAndPlay.disabled = tableOnly.checked;
          if (tableOnly.checked) passAndPlay.checked = false;
        }
      };
      tableOnly.addEventListener("change", syncTable);
      syncTable();
    }
  }

  setUpOpenRoom();

  // A word that does not fit its box is set smaller, never split between two letters.
  var FIT = ".concept, .tile-name, .card-name, .object-name, .slogan-text, .options li, .pan li, .seat-name";
  function fitText(root) {
    root.querySelectorAll(FIT).forEach(function (element) {
      element.style.removeProperty("font-size");
      var size = parseFloat(getComputedStyle(element).fontSize);
      var floor = size * 0.55;
      while (element.scrollWidth > element.clientWidth + 1 && size > floor) {
        size -= 1;
        element.style.fontSize = size + "px";
      }
    });
  }
  // The table screen never scrolls: when a big board still does not fit, it is zoomed out a bit.
  function fitTable() {
    var main = document.querySelector(".page-table:not(.page-replay) main");
    if (!main || window.innerWidth < 1000) return;
    main.style.removeProperty("zoom");
    var zoom = 1;
    var root = document.scrollingElement;
    while (root.scrollHeight > window.innerHeight && zoom > 0.6) {
      zoom -= 0.04;
      main.style.zoom = String(zoom);
    }
  }
  window.addEventListener("resize", function () { fitText(document); fitTable(); });
  fitText(document);
  fitTable();

  // Replay: the arrow keys step.
  document.addEventListener("keydown", function (event) {
    if (event.target.closest && event.target.closest("input, textarea, select")) return;
    var link = document.querySelector('[data-key="' + event.key + '"]');
    if (link) { link.click(); }
  });

  // A rejoin link carries the seat's token after "#": browsers never send that part, so it is
  // in no request line, access log or Referer. Here it goes into the form, leaves the address
  // bar, and is exchanged for the seat cookie by a POST.
  var rejoin = document.querySelector("form[data-rejoin]");
  if (rejoin && location.hash.length > 1) {
    rejoin.elements.token.value = decodeURIComponent(location.hash.slice(1));
    history.replaceState(null, "", location.pathname);
    rejoin.submit();
  }

  if (!live) return;

  var api = live.dataset.api;
  var fragmentUrl = live.dataset.fragment;
  var version = null;
  var busy = false;
  var wakeLock = null;

  function readRegion() {
    var head = live.querySelector("[data-version]");
    if (head) version = parseInt(head.dataset.version, 10);
    var turn = live.querySelector("[data-announce]");
    if (turn && announce && announce.textContent !== turn.textContent.trim()) {
      announce.textContent = turn.textContent.trim();
    }
    var playing = head && head.dataset.status === "playing";
    document.body.classList.toggle("your-turn-now", !!live.querySelector("[data-your-turn]"));
    keepAwake(playing);
    cueTurn(!!live.querySelector("[data-your-turn]"));
    fitText(live);
    fitTable();
    placeNotices();
  }

  function keepAwake(playing) {
    if (!("wakeLock" in navigator)) return;
    if (playing && !wakeLock && document.visibilityState === "visible") {
      navigator.wakeLock.request("screen").then(function (lock) {
        wakeLock = lock;
        lock.addEventListener("release", function () { wakeLock = null; });
      }).catch(function () { /* refused (battery saver, insecure context) */ });
    } else if (!playing && wakeLock) {
      wakeLock.release();
      wakeLock = null;
    }
  }

  // Swap the region, keeping the focused control (by its action) and the scroll position.
  function swap(html) {
    var active = document.activeElement;
    var key = active && live.contains(active)
      ? (active.getAttribute("data-action") || active.id || null) : null;
    var scroll = window.scrollY;
    var open = Array.prototype.map.call(live.querySelectorAll("details[open]"), function (d) {
      return d.className;
    });
    var marker = (live.querySelector('[data-marker-choice] input:checked') || {}).value;
    live.innerHTML = html;
    open.forEach(function (name) {
      var again = name && live.querySelector("details." + name.split(" ").join("."));
      if (again) again.open = true;
    });
    if (marker) {
      var radio = live.querySelector('[data-marker-choice] input[value="' + marker + '"]');
      if (radio) radio.checked = true;
    }
    if (key) {
      var same = live.querySelector('[data-action="' + CSS.escape(key) + '"]') || document.getElementById(key);
      if (same) same.focus({ preventScroll: true });
    }
    window.scrollTo(0, scroll);
    readRegion();
  }

  // The region anew (rejects when it cannot: play-link.js tries again).
  function refresh() {
    return window.KartothekLink.fetch(fragmentUrl, {
      credentials: "same-origin", headers: { "X-Requested-With": "fetch" }
    }, REQUEST_TIMEOUT_MS).then(function (response) {
      if (response.status === 403 || response.status === 404) { window.location.reload(); return null; }
      if (!response.ok) throw new Error("HTTP " + response.status);
      return response.text();
    }).then(function (html) { if (html !== null && html !== undefined) swap(html); });
  }

  function act(button, action) {
    if (busy) return;
    if (navigator.onLine === false) {  // said at once, not after a request that cannot go
      showToast(live.dataset.offline);
      link.failed();
      return;
    }
    busy = true;
    live.setAttribute("aria-busy", "true");
    button.classList.add("sending");
    window.KartothekLink.fetch(api + "/actions", {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRFToken": csrfToken(), "Accept": "application/json" },
      body: JSON.stringify({ id: freshId(), version: version, action: action })
    }, REQUEST_TIMEOUT_MS).then(function (response) {
      return response.json().catch(function () { return {}; }).then(function (body) {
        if (response.status === 409) {
          sayRejected();
          showToast(body.error || "Someone was faster.");
        } else if (!response.ok) {
          showToast(body.error || ("Error " + response.status));
        }
      });
    }, function () {
      // not sent, or no answer: said, and the page looks again (the screen shows what happened)
      showToast(live.dataset.offline);
      link.failed();
    }).then(function () {
      return link.refresh();
    }).then(function () {
      busy = false;
      live.removeAttribute("aria-busy");
      button.classList.remove("sending");
    });
  }

  live.addEventListener("click", function (event) {
    var button = event.target.closest("button[data-action]");
    if (!button || !live.contains(button) || button.closest("[inert]")) return;
    event.preventDefault();
    var raw = button.getAttribute("data-action");
    var choice = live.querySelector("[data-marker-choice] input:checked");
    if (choice && choice.value === "grey" && button.hasAttribute("data-action-grey")) {
      raw = button.getAttribute("data-action-grey");
    }
    var action;
    try { action = JSON.parse(raw); } catch (e) { return; }
    act(button, action);
  });

  // The hand-over screen (pass and play): post, then show the new holder's seat at once.
  live.addEventListener("submit", function (event) {
    var form = event.target.closest("[data-hand-form]");
    if (!form) return;
    event.preventDefault();
    window.KartothekLink.fetch(form.action, {
      method: "POST", credentials: "same-origin", body: new FormData(form),
      headers: { "X-CSRFToken": csrfToken(), "X-Requested-With": "fetch" }
    }, REQUEST_TIMEOUT_MS).then(function () { return link.refresh(); }, function () {
      showToast(live.dataset.offline);
      link.failed();
    });
  });

  // --- "your turn": the tab's title, and (opt-in) a beep and a buzz --------------------------

  var cueButton = document.getElementById("cue-toggle");
  var baseTitle = document.title;
  var wasYourTurn = null;
  var audio = null;
  var CUE_KEY = "kt-turn-cue";

  function cueOn() {
    try { return window.localStorage.getItem(CUE_KEY) === "on"; } catch (e) { return false; }
  }

  function showCue() {
    if (!cueButton) return;
    var on = cueOn();
    cueButton.setAttribute("aria-pressed", on ? "true" : "false");
    cueButton.textContent = on ? cueButton.dataset.on : cueButton.dataset.off;
  }

  function beep() {
    var Context = window.AudioContext || window.webkitAudioContext;
    if (!Context) return;
    if (!audio) audio = new Context();
    if (audio.state === "suspended") audio.resume();
    var now = audio.currentTime;
    [0, 0.18].forEach(function (offset, i) {
      var tone = audio.createOscillator();
      var gain = audio.createGain();
      tone.type = "sine";
      tone.frequency.value = i ? 988 : 660;
      gain.gain.setValueAtTime(0.0001, now + offset);
      gain.gain.exponentialRampToValueAtTime(0.25, now + offset + 0.02);
      gain.gain.exponentialRampToValueAtTime(0.0001, now + offset + 0.15);
      tone.connect(gain).connect(audio.destination);
      tone.start(now + offset);
      tone.stop(now + offset + 0.16);
    });
  }

  function cueTurn(yours) {
    if (cueButton) {
      document.title = yours ? "\u25CF " + cueButton.dataset.title + " \u2013 " + baseTitle : baseTitle;
    }
    if (yours && wasYourTurn === false && cueOn()) {
      try { beep(); } catch (e) { /* no audio here */ }
      if (navigator.vibrate) navigator.vibrate([120, 60, 120]);
    }
    wasYourTurn = yours;
  }

  if (cueButton) {
    showCue();
    cueButton.addEventListener("click", function () {
      var on = !cueOn();
      try { window.localStorage.setItem(CUE_KEY, on ? "on" : "off"); } catch (e) { /* private mode */ }
      showCue();
      // The click is the gesture a browser wants before it plays sound: a short test beep.
      if (on) { try { beep(); } catch (e) { /* no audio */ } }
    });
  }

  // --- a tap that came too late (409): said in the page, for everyone ---------------------------

  function sayRejected() {
    var region = document.getElementById("rejected");
    if (!region) return;
    region.textContent = "";
    // A fresh text node, so a screen reader announces the same sentence a second time too.
    setTimeout(function () { region.textContent = region.dataset.text; }, 30);
    clearTimeout(sayRejected.timer);
    sayRejected.timer = setTimeout(function () { region.textContent = ""; }, 6000);
  }

  // --- the same seat open in a second tab --------------------------------------------------------

  // Each tab of a seat says hello, then "here" every 0.7 s on a BroadcastChannel (each word
  // lasts 2 s; a hidden tab's 90 s: its timers may run only once a minute), and goodbye when it
  // goes; the warning shows while another tab's word lasts (a crashed tab's runs out).
  function watchOtherTabs() {
    var notice = document.getElementById("other-tab");
    if (!notice || live.dataset.page !== "seat" || !window.BroadcastChannel) return;
    var me = freshId();
    var others = {};  // tab id → until when its word counts
    var channel = new BroadcastChannel("kartothek-seat-" + live.dataset.code);
    var gone = false;  // after "pagehide" (a hidden tab says no more: it is going)
    function send(kind) {
      if (gone) return;
      var lasts = document.visibilityState === "hidden" ? 90000 : 2000;
      try { channel.postMessage({ kind: kind, from: me, lasts: lasts }); } catch (e) { /* closed */ }
    }
    function show() {
      var now = Date.now();
      Object.keys(others).forEach(function (id) { if (others[id] < now) delete others[id]; });
      var warn = Object.keys(others).length > 0;
      if (warn === !notice.hidden) return;
      notice.textContent = warn ? notice.dataset.text : "";
      notice.hidden = !warn;
    }
    channel.onmessage = function (event) {
      var data = event.data || {};
      if (!data.from || data.from === me) return;
      if (data.kind === "bye") delete others[data.from];
      else others[data.from] = Date.now() + Math.min(data.lasts || 2000, 90000);
      if (data.kind === "hello") send("here");
      show();
    };
    send("hello");
    setInterval(function () { send("here"); }, 700);
    setInterval(show, 250);
    document.addEventListener("visibilitychange", function () { send("here"); });
    window.addEventListener("pagehide", function () { send("bye"); gone = true; });
    window.addEventListener("pageshow", function (event) {
      if (!event.persisted) return;
      gone = false;
      send("hello");
    });
  }

  // --- notices where no button is ----------------------------------------------------------------

  // The notices (#notices: a refused move, a second tab, the connection) float in the viewport:
  // at the top of the first band free of buttons, links and fields (else the bottom's), so a
  // message never covers what a player taps (and a tap goes through them anyway).
  var notices = document.getElementById("notices");
  var TAPPABLE = "button, a[href], summary, input, select, textarea, label";

  function placeNotices() {
    if (!notices || !notices.offsetHeight) return;
    var height = notices.offsetHeight;
    var room = window.innerHeight;
    var edge = 8;
    var spans = [];
    document.querySelectorAll(TAPPABLE).forEach(function (element) {
      if (notices.contains(element) || element.disabled || element.closest("[inert], [hidden]")) return;
      var box = element.getBoundingClientRect();
      if (!box.width || !box.height || box.bottom < 0 || box.top > room) return;
      spans.push([box.top - 6, box.bottom + 6]);
    });
    var free = function (top) {
      return top >= 0 && top + height <= room && spans.every(function (span) {
        return span[1] <= top || span[0] >= top + height;
      });
    };
    var tops = [edge].concat(spans.map(function (span) { return span[1]; }).sort(function (a, b) { return a - b; }));
    var top = null;
    for (var i = 0; i < tops.length && top === null; i += 1) {
      if (free(tops[i])) top = tops[i];
    }
    if (top === null) top = free(room - height - edge) ? room - height - edge : edge;
    notices.style.top = Math.round(top) + "px";
  }

  var placing = false;
  function placeSoon() {
    if (placing) return;
    placing = true;
    window.requestAnimationFrame(function () { placing = false; placeNotices(); });
  }
  if (notices) {
    new MutationObserver(placeSoon).observe(notices, {
      subtree: true, childList: true, characterData: true, attributes: true, attributeFilter: ["hidden"]
    });
    window.addEventListener("scroll", placeSoon, { passive: true });
    window.addEventListener("resize", placeSoon);
  }

  readRegion();
  watchOtherTabs();
  var link = window.KartothekLink({
    api: api,
    table: live.dataset.page === "table",
    version: function () { return version; },
    busy: function () { return busy; },
    refresh: refresh
  });
})();
