// hyscribe web application: progressive enhancement only. Every page works
// without this file; with it, statuses update live, transcript lines play
// the audio from their time, and the checklist editor grows rows.
(function () {
  "use strict";

  // Live statuses: rows and pages marked data-live-id with a non-final
  // data-status are refreshed every few seconds until they settle.
  function live() {
    var nodes = document.querySelectorAll("[data-live-id]");
    var ids = [];
    nodes.forEach(function (n) {
      if (n.getAttribute("data-terminal") !== "true") ids.push(n.getAttribute("data-live-id"));
    });
    if (ids.length === 0) return;
    var q = ids.map(function (id) { return "id=" + encodeURIComponent(id); }).join("&");
    fetch("/app/recordings/status?" + q, { credentials: "same-origin", headers: { "Accept": "application/json" } })
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (body) {
        if (!body) return;
        nodes.forEach(function (n) {
          var j = body.jobs[n.getAttribute("data-live-id")];
          if (!j || n.getAttribute("data-status") === j.status) return;
          n.setAttribute("data-status", j.status);
          n.setAttribute("data-terminal", String(j.terminal));
          n.querySelectorAll("[data-field]").forEach(function (f) {
            var k = f.getAttribute("data-field");
            if (k === "status") {
              f.textContent = j.statusText;
              f.className = "badge status-" + j.status;
            } else if (k === "title" && j.title) {
              f.textContent = j.title;
            } else if (k === "duration") {
              f.textContent = j.duration;
            }
          });
          // A recording's page shows much more once the job settles.
          if (j.terminal && n.hasAttribute("data-reload")) window.location.reload();
        });
      })
      .catch(function () { /* the next tick tries again */ });
  }

  // Transcript lines: play the recording from the line's start.
  function seekable() {
    var audio = document.getElementById("player");
    if (!audio) return;
    document.querySelectorAll("[data-start]").forEach(function (el) {
      el.addEventListener("click", function (ev) {
        ev.preventDefault();
        audio.currentTime = parseFloat(el.getAttribute("data-start")) || 0;
        var p = audio.play();
        if (p && p.catch) p.catch(function () {});
        document.querySelectorAll(".turn.playing").forEach(function (t) { t.classList.remove("playing"); });
        var turn = el.closest(".turn");
        if (turn) turn.classList.add("playing");
      });
    });
  }

  // Checklist editor: "add a question" clones the last row, emptied.
  function editor() {
    var add = document.getElementById("add-question");
    var list = document.getElementById("questions");
    if (!add || !list) return;
    add.hidden = false;
    add.addEventListener("click", function () {
      var rows = list.querySelectorAll(".question");
      var last = rows[rows.length - 1];
      var copy = last.cloneNode(true);
      var n = rows.length; // the next row's index: the server numbers rows from 0
      copy.querySelectorAll("input, textarea").forEach(function (i) {
        i.value = "";
        var base = i.id.replace(/-\d+$/, "");
        i.id = base + "-" + n;
      });
      copy.querySelectorAll("label").forEach(function (l) {
        var f = l.getAttribute("for");
        if (f) l.setAttribute("for", f.replace(/-\d+$/, "") + "-" + n);
      });
      list.appendChild(copy);
      var first = copy.querySelector("input");
      if (first) first.focus();
    });
  }

  // Forms that destroy something ask first.
  function confirms() {
    document.querySelectorAll("form[data-confirm]").forEach(function (f) {
      f.addEventListener("submit", function (ev) {
        if (!window.confirm(f.getAttribute("data-confirm"))) ev.preventDefault();
      });
    });
  }

  // Copy buttons next to a new key.
  function copies() {
    document.querySelectorAll("[data-copy]").forEach(function (b) {
      b.hidden = false;
      b.addEventListener("click", function () {
        var src = document.getElementById(b.getAttribute("data-copy"));
        if (src && navigator.clipboard) navigator.clipboard.writeText(src.textContent.trim());
      });
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    seekable();
    editor();
    confirms();
    copies();
    // The upload form adds rows later: keep asking while it is there.
    if (document.querySelector("[data-live-id], #upload-form")) {
      live();
      window.setInterval(live, 3000);
    }
  });
})();
