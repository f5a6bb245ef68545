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
      // A settled job whose checklist analysis is still awaited is asked too.
      if (n.getAttribute("data-terminal") !== "true" || n.querySelector("[data-awaits]")) ids.push(n.getAttribute("data-live-id"));
    });
    if (ids.length === 0) return;
    var q = ids.map(function (id) { return "id=" + encodeURIComponent(id); }).join("&");
    fetch("/app/recordings/status?" + q, { credentials: "same-origin", headers: { "Accept": "application/json" } })
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (body) {
        if (!body) return;
        nodes.forEach(function (n) {
          var j = body.jobs[n.getAttribute("data-live-id")];
          if (!j) return;
          var moved = n.getAttribute("data-status") !== j.status;
          // A refused upload keeps the status and changes only the reason.
          var refused = n.hasAttribute("data-reason") && n.getAttribute("data-reason") !== j.error;
          n.setAttribute("data-status", j.status);
          n.setAttribute("data-terminal", String(j.terminal));
          n.querySelectorAll("[data-field]").forEach(function (f) {
            var k = f.getAttribute("data-field");
            if (k === "status") {
              f.textContent = j.statusText;
              f.className = "badge status-" + j.status;
            } else if (k === "title" && j.title && moved) {
              f.textContent = j.title;
            } else if (k === "duration") {
              f.textContent = j.duration;
            } else if (k === "reason") {
              f.textContent = j.reason;
            } else if (k === "checklist" && j.checklist && f.hasAttribute("data-awaits")) {
              // A recording's page shows the whole analysis: reload it.
              if (n.hasAttribute("data-reload")) window.location.reload();
              else checklistCell(f, j.checklist);
            }
          });
          // A recording's page shows much more once the job settles.
          if (n.hasAttribute("data-reload") && ((moved && j.terminal) || (refused && j.error))) window.location.reload();
        });
      })
      .catch(function () { /* the next tick tries again */ });
  }

  // The history's checklist column once the analysis is there: the call's
  // total ("1/3 · 0.25", the checklist's name as its title), the failure
  // badge, or nothing for a job that failed before any analysis.
  function checklistCell(f, c) {
    f.removeAttribute("data-awaits");
    f.textContent = "";
    if (c.state === "none") return;
    var s = document.createElement("span");
    s.textContent = c.text;
    if (c.state === "ok") s.title = c.name || "";
    else s.className = "badge status-failed";
    f.appendChild(s);
  }

  // Transcript lines: play the recording from the line's start, from its
  // time or its text (unless the click ends a selection of words). While it
  // plays, the line being spoken is marked and kept in view; the speed
  // menu sets the playback rate.
  function seekable() {
    var audio = document.getElementById("player");
    if (!audio) return;
    document.querySelectorAll("[data-start]").forEach(function (el) {
      el.addEventListener("click", function (ev) {
        ev.preventDefault();
        audio.currentTime = parseFloat(el.getAttribute("data-start")) || 0;
        var p = audio.play();
        if (p && p.catch) p.catch(function () {});
      });
    });
    var turns = Array.prototype.slice.call(document.querySelectorAll(".turn[data-from]"));
    turns.forEach(function (turn) {
      var words = turn.querySelector(".text");
      if (!words) return;
      words.addEventListener("click", function () {
        var sel = window.getSelection && window.getSelection();
        if (sel && String(sel).length > 0) return;
        audio.currentTime = parseFloat(turn.getAttribute("data-from")) || 0;
        var p = audio.play();
        if (p && p.catch) p.catch(function () {});
      });
    });
    var current = null;
    audio.addEventListener("timeupdate", function () {
      var t = audio.currentTime, line = null;
      for (var i = 0; i < turns.length; i++) {
        if (parseFloat(turns[i].getAttribute("data-from")) <= t + 0.05) line = turns[i]; else break;
      }
      if (line === current) return;
      if (current) { current.classList.remove("playing"); current.removeAttribute("aria-current"); }
      current = line;
      if (!line) return;
      line.classList.add("playing");
      line.setAttribute("aria-current", "true");
      var box = line.getBoundingClientRect();
      var player = audio.closest(".player");
      var top = player ? player.getBoundingClientRect().bottom : 0;
      if (box.top < top || box.bottom > window.innerHeight) line.scrollIntoView({ block: "center", behavior: "smooth" });
    });
    var speed = document.getElementById("speed");
    if (speed) {
      document.getElementById("speed-control").hidden = false;
      speed.addEventListener("change", function () { audio.playbackRate = parseFloat(speed.value) || 1; });
    }
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
      copy.querySelectorAll("input, textarea, select").forEach(function (i) {
        i.value = "";
        var base = i.id.replace(/-\d+$/, "");
        i.id = base + "-" + n;
      });
      copy.querySelectorAll("label").forEach(function (l) {
        var f = l.getAttribute("for");
        if (f) l.setAttribute("for", f.replace(/-\d+$/, "") + "-" + n);
      });
      // The legend counts from 1: "Question 4" for the fourth block.
      var legend = copy.querySelector("legend");
      if (legend) legend.textContent = legend.textContent.replace(/\d+\s*$/, String(n + 1));
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
    // A button of a form that also does harmless things asks for itself.
    // One that knows how many it takes (data-count) says so.
    document.querySelectorAll("button[data-confirm]").forEach(function (b) {
      b.addEventListener("click", function (ev) {
        var msg = b.getAttribute("data-confirm"), n = b.getAttribute("data-count");
        if (n && b.getAttribute("data-confirm-n")) msg = b.getAttribute("data-confirm-n").replace("%d", n);
        if (!window.confirm(msg)) ev.preventDefault();
      });
    });
  }

  // The history's bulk form counts what it will take: the ticked rows, or
  // every call the filter keeps once "select all matching" is ticked.
  function bulkCount() {
    var form = document.getElementById("bulk"), out = document.getElementById("bulk-count");
    if (!form || !out) return;
    var all = document.getElementById("bulk-all"), del = document.getElementById("bulk-delete");
    function update() {
      var n = document.querySelectorAll("input.pick:checked").length, text = form.getAttribute("data-count-text");
      if (all && all.checked) {
        n = parseInt(form.getAttribute("data-total"), 10);
        text = form.getAttribute("data-all-text");
      }
      out.textContent = text.replace("%d", n);
      if (del) del.setAttribute("data-count", String(n));
    }
    document.addEventListener("change", function (ev) {
      if (ev.target.matches && ev.target.matches("input.pick, #bulk-all")) update();
    });
    update();
  }

  // Copy buttons next to a new key; the button says so once it copied
  // (its data-copied text is in the page's language).
  function copies() {
    document.querySelectorAll("[data-copy]").forEach(function (b) {
      b.hidden = false;
      b.addEventListener("click", function () {
        var src = document.getElementById(b.getAttribute("data-copy"));
        if (!src || !navigator.clipboard) return;
        navigator.clipboard.writeText(src.textContent.trim()).then(function () {
          if (b.getAttribute("data-copied")) b.textContent = b.getAttribute("data-copied");
        }, function () {});
      });
    });
  }

  // On a phone the header's menu and the history's filters start folded
  // behind a button each (the search stays), so the first screen shows
  // recordings; a filter in use keeps its form open.
  function folds() {
    if (!window.matchMedia || !window.matchMedia("(max-width: 720px)").matches) return;
    function fold(box, cls, label, expanded) {
      var b = document.createElement("button");
      b.type = "button";
      b.className = "secondary " + cls;
      b.textContent = label;
      b.setAttribute("aria-expanded", expanded ? "true" : "false");
      box.classList.add("folds");
      if (!expanded) box.classList.add("folded");
      b.addEventListener("click", function () {
        var open = box.classList.toggle("folded") === false;
        b.setAttribute("aria-expanded", open ? "true" : "false");
      });
      return b;
    }
    var header = document.querySelector("header.top");
    if (header && header.querySelector("nav") && header.getAttribute("data-menu")) {
      header.insertBefore(fold(header, "menu-toggle", header.getAttribute("data-menu"), false), header.querySelector("nav"));
    }
    var filters = document.querySelector("form.filters");
    if (filters && filters.getAttribute("data-more")) {
      var used = Array.prototype.some.call(filters.querySelectorAll("select, input[type=date], input[type=text]"), function (i) { return i.value; }) ||
        filters.querySelector("input[type=checkbox]:checked") !== null;
      filters.appendChild(fold(filters, "filters-toggle", filters.getAttribute("data-more"), used));
    }
  }

  document.addEventListener("DOMContentLoaded", function () {
    folds();
    seekable();
    editor();
    confirms();
    bulkCount();
    copies();
    // The upload form adds rows later: keep asking while it is there.
    if (document.querySelector("[data-live-id], #upload-form")) {
      live();
      window.setInterval(live, 3000);
    }
  });
})();
