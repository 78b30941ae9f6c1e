/* Kartothek play pages: staying in touch with the room (used by play.js).
 *
 * The page listens to the room's event stream (GET /api/play/rooms/CODE/events, Server-Sent
 * Events). The stream sends `event: ping` every second or so; a stream heard from within a
 * ping and a half is trusted, and then the page does not poll. Otherwise — the stream is
 * refused, still connecting, cut (an error) or silent (no bytes: a dead connection) — the page
 * polls GET /api/play/rooms/CODE about once a second with If-None-Match (304 is cheap), and
 * opens a new stream after a short wait. A stream silent for DEAD_MS is hung up.
 *
 * A failed request (offline, a server restarting) shows "Reconnecting…" (#connection, a status
 * region: announced, in words) and is tried again after 250, 500 ms, then every second; the
 * browser's `offline` says so at once and `online` looks at once. When a look succeeds (and the
 * page shows the room's current version) the status says "Connected again" for a moment.
 * Every fetch here is caught: a network error is never an uncaught rejection.
 *
 * KartothekLink(options) → {refresh, failed}; options: api, table (the table screen: polls
 * without cookies, streams ?as=table), version() (the version the page shows), busy() (a
 * move is being sent: its own refresh follows), refresh() (fetch and show the region: a
 * promise that rejects when it cannot).
 */
(function () {
  "use strict";

  var POLL_MS = 1000;               // polls while the stream is not trusted
  var RETRY_MS = [250, 500, 1000];  // after a failed request
  var STREAM_RETRY_MS = [1000, 2000, 4000, 8000, 15000, 30000];  // a new stream after a failure
  var DEAD_MS = 5000;               // a stream silent this long is hung up
  var WATCH_MS = 250;
  var BACK_MS = 2500;               // how long "Connected again" stays
  var LOOK_TIMEOUT_MS = 4000;       // a poll with no answer by then has failed (a dead network)

  // fetch() that gives up after `ms`, its body included (a request on a dead connection may
  // else hang for minutes, and a page waiting for it would look no more).
  function timedFetch(url, init, ms) {
    if (window.AbortController) {
      var abort = new AbortController();
      setTimeout(function () { abort.abort(); }, ms);  // once done, an abort changes nothing
      init.signal = abort.signal;
    }
    return fetch(url, init);
  }

  window.KartothekLink = function (options) {
    var api = options.api;
    var status = document.getElementById("connection");
    var etag = null;
    var timer = null;           // the next poll
    var looking = false;        // a poll under way
    var failures = 0;           // failed requests in a row
    var lost = false;           // "Reconnecting…" is shown
    var backTimer = null;
    var stream = null;
    var opened = false;         // the stream's response came
    var heardAt = 0;            // when the stream last said anything (or was opened)
    var pingMs = 1000;          // the server's ping interval (each ping says it)
    var streamFailures = 0;
    var relistenTimer = null;
    var heard = null;           // the newest version the stream or a poll told of
    var refreshing = null;      // the refresh under way (a promise)

    function hidden() { return document.visibilityState === "hidden"; }
    function offline() { return navigator.onLine === false; }

    // --- what the page says ----------------------------------------------------------------

    function say(kind) {
      if (!status) return;
      clearTimeout(backTimer);
      status.classList.toggle("back", kind === "back");
      status.textContent = kind ? status.dataset[kind] : "";
      if (kind === "back") backTimer = setTimeout(function () { say(null); }, BACK_MS);
    }

    function fine() {
      failures = 0;
      if (lost) {
        lost = false;
        say("back");
      }
    }

    function trouble() {
      failures += 1;
      if (!lost) {
        lost = true;
        say("lost");
      }
      schedule();
    }

    // --- showing the newest version --------------------------------------------------------

    // Fetch the region until it shows the newest version heard of (one refresh at a time).
    function catchUp(version) {
      if (version !== undefined && version !== null) heard = version;
      if (refreshing) return refreshing;
      if (heard === null || heard === options.version() || options.busy()) return Promise.resolve();
      var asked = heard;
      refreshing = options.refresh().then(function () {
        refreshing = null;
        if (heard !== asked && heard !== options.version()) return catchUp();
        return null;
      }, function (error) {
        refreshing = null;
        throw error;
      });
      return refreshing;
    }

    function refresh() {
      return options.refresh().then(fine, trouble);
    }

    // --- polls -----------------------------------------------------------------------------

    function trusted() {
      return !!stream && opened && Date.now() - heardAt < Math.max(1600, pingMs * 1.6);
    }

    function look() {
      clearTimeout(timer);
      timer = null;
      if (hidden() || looking) return;
      looking = true;
      var headers = { "Accept": "application/json" };
      if (etag) headers["If-None-Match"] = etag;
      var tag = null;
      // The table screen is nobody's seat: it polls without cookies (a stale seat cookie on the
      // TV's browser must not turn its polls into 403s).
      window.KartothekLink.fetch(api, {
        credentials: options.table ? "omit" : "same-origin", headers: headers, cache: "no-store"
      }, LOOK_TIMEOUT_MS)
        .then(function (response) {
          if (response.status === 304) return null;
          if (response.status === 404 || response.status === 403) { window.location.reload(); return null; }
          if (!response.ok) throw new Error("HTTP " + response.status);
          tag = response.headers.get("ETag");
          return response.json();
        })
        .then(function (body) {
          if (!body) return null;
          return catchUp(body.version).then(function () {
            // the tag only once the page shows its version (a 304 must not hide a failed refresh)
            if (body.version === options.version()) etag = tag;
          });
        })
        .then(fine, trouble)
        .then(function () {
          looking = false;
          schedule();
        });
    }

    function schedule() {
      clearTimeout(timer);
      timer = null;
      if (hidden() || looking) return;
      if (failures) {
        timer = setTimeout(look, RETRY_MS[Math.min(failures, RETRY_MS.length) - 1]);
      } else if (!trusted()) {
        timer = setTimeout(function () {
          timer = null;
          if (!trusted()) look();
        }, POLL_MS);
      }
    }

    // --- the stream ------------------------------------------------------------------------

    function listen() {
      clearTimeout(relistenTimer);
      relistenTimer = null;
      if (!window.EventSource || stream || hidden() || offline()) return;
      var query = [];
      // The table screen asks for the table's view whatever seat cookie its browser holds.
      if (options.table) query.push("as=table");
      if (options.version() !== null) query.push("last_event_id=" + options.version());
      var source = new EventSource(api + "/events" + (query.length ? "?" + query.join("&") : ""));
      stream = source;
      opened = false;
      heardAt = Date.now();
      function mine() { return source === stream; }
      source.addEventListener("open", function () {
        if (!mine()) return;
        opened = true;
        heardAt = Date.now();
      });
      source.addEventListener("room", function (event) {
        if (!mine()) return;
        heardAt = Date.now();
        streamFailures = 0;
        var body;
        try { body = JSON.parse(event.data); } catch (e) { return; }
        catchUp(body.version).then(fine, trouble);
      });
      source.addEventListener("ping", function (event) {
        if (!mine()) return;
        heardAt = Date.now();
        streamFailures = 0;
        var body;
        try { body = JSON.parse(event.data); } catch (e) { return; }
        if (body.every > 0) pingMs = body.every * 1000;
        // the version this stream last sent: a refresh that failed since is tried again
        var shown = options.version();
        if (typeof body.version === "number" && (shown === null || body.version > shown)) {
          catchUp(body.version).then(fine, trouble);
        }
      });
      source.addEventListener("closed", function () {
        if (!mine()) return;
        hangUp();
        look();  // the seat or the room is gone: the poll's 403/404 reloads the page
      });
      source.addEventListener("error", function () {
        if (!mine()) return;
        var wasOpen = opened;
        hangUp();
        relisten();
        if (wasOpen) look();  // a live stream died: look at once (else the polls run already)
      });
    }

    function hangUp() {
      if (stream) stream.close();
      stream = null;
      opened = false;
    }

    function relisten() {
      clearTimeout(relistenTimer);
      var wait = STREAM_RETRY_MS[Math.min(streamFailures, STREAM_RETRY_MS.length - 1)];
      streamFailures += 1;
      relistenTimer = setTimeout(listen, wait);
    }

    // The watchdog: a stream that fell silent is not trusted (the polls start at once), and
    // one silent for DEAD_MS is hung up and opened anew.
    setInterval(function () {
      if (hidden()) return;
      if (stream && Date.now() - heardAt > DEAD_MS) {
        hangUp();
        relisten();
      }
      if (!trusted() && !timer && !looking) look();
    }, WATCH_MS);

    window.addEventListener("offline", function () {
      hangUp();
      if (!lost) {
        lost = true;
        say("lost");
      }
      schedule();
    });

    window.addEventListener("online", function () {
      streamFailures = 0;
      hangUp();
      listen();
      look();
    });

    document.addEventListener("visibilitychange", function () {
      if (!hidden()) {
        streamFailures = 0;
        listen();
        look();
      } else {
        clearTimeout(timer);
        timer = null;
        clearTimeout(relistenTimer);
        hangUp();
      }
    });

    listen();
    schedule();

    return {
      // after a move: show its result (a failure is said and tried again)
      refresh: refresh,
      // a request of the page failed (a move that could not be sent): say so, look again soon
      failed: function () { trouble(); }
    };
  };
  window.KartothekLink.fetch = timedFetch;
})();
