// hyscribe web application: the "New recording" form. Each chosen or
// dropped file is checked by the server from its first bytes (a file that
// is not MP3 is refused with the processing stage's own reason), becomes a
// job through the API's use case, and is PUT to its signed upload address
// with a progress bar, exactly as an API client does. The history below
// is refreshed as soon as the jobs exist; app.js keeps their statuses live.
(function () {
  "use strict";

  var form = document.getElementById("upload-form");
  if (!form) return;
  var input = document.getElementById("files");
  var drop = document.getElementById("drop");
  var list = document.getElementById("upload-list");
  var headBytes = parseInt(form.getAttribute("data-head"), 10) || 16384;
  var maxBytes = parseInt(form.getAttribute("data-max"), 10) || 0;
  var items = [];
  var busy = false;

  function msg(name) { return form.getAttribute("data-msg-" + name) || name; }

  function add(files) {
    Array.prototype.forEach.call(files, function (f) {
      var li = document.createElement("li");
      li.className = "upload-item";
      li.setAttribute("data-file", f.name);
      var name = document.createElement("span");
      name.className = "name";
      name.textContent = f.name + " · " + Math.max(1, Math.round(f.size / 1024)) + " KiB";
      var bar = document.createElement("progress");
      bar.max = 100;
      bar.value = 0;
      bar.setAttribute("aria-label", f.name);
      var state = document.createElement("span");
      state.className = "state";
      state.textContent = msg("queued");
      li.appendChild(name);
      li.appendChild(bar);
      li.appendChild(state);
      list.appendChild(li);
      items.push({ file: f, li: li, bar: bar, state: state, done: false });
    });
  }

  function fail(item, text) {
    item.done = true;
    item.li.classList.add("refused");
    item.li.setAttribute("data-result", "refused");
    item.state.textContent = msg("failed") + ": " + text;
    item.state.setAttribute("role", "alert");
  }

  function base64(buf) {
    var bytes = new Uint8Array(buf);
    var s = "";
    for (var i = 0; i < bytes.length; i++) s += String.fromCharCode(bytes[i]);
    return window.btoa(s);
  }

  // create asks the server for a job (and its verdict on the file).
  function create(item) {
    return item.file.slice(0, headBytes).arrayBuffer().then(function (head) {
      var body = new URLSearchParams();
      body.set("_csrf", form.elements["_csrf"].value);
      body.set("type", form.elements["type"].value);
      body.set("checklistId", form.elements["checklistId"].value);
      body.set("metadata", form.elements["metadata"].value);
      body.set("size", String(item.file.size));
      body.set("filename", item.file.name);
      body.set("head", base64(head));
      return fetch(form.getAttribute("action"), {
        method: "POST", credentials: "same-origin", body: body,
        headers: { "Accept": "application/json" }
      });
    }).then(function (r) {
      return r.json().then(function (j) { return { ok: r.ok, body: j }; });
    });
  }

  // put sends the file to its signed address, reporting progress.
  function put(item, url) {
    return new Promise(function (resolve) {
      var xhr = new XMLHttpRequest();
      xhr.open("PUT", url);
      xhr.upload.addEventListener("progress", function (ev) {
        if (ev.lengthComputable) item.bar.value = Math.round(ev.loaded / ev.total * 100);
      });
      xhr.addEventListener("load", function () {
        if (xhr.status >= 200 && xhr.status < 300) {
          item.bar.value = 100;
          item.done = true;
          item.li.classList.add("uploaded");
          item.li.setAttribute("data-result", "uploaded");
          item.state.textContent = msg("done");
        } else {
          var text = xhr.statusText;
          try { text = JSON.parse(xhr.responseText).error || text; } catch (e) { /* not JSON: an object store's XML */ }
          fail(item, text + " (" + xhr.status + ")");
        }
        resolve();
      });
      xhr.addEventListener("error", function () { interrupted(item, url); resolve(); });
      xhr.send(item.file);
    });
  }

  // interrupted offers what to do with a job whose file did not arrive
  // (the network dropped): send it again to the same address, still valid
  // for the upload window, or cancel, which deletes the waiting job.
  function interrupted(item, url) {
    fail(item, msg("network"));
    item.li.setAttribute("data-result", "interrupted");
    var retry = document.createElement("button");
    retry.type = "button";
    retry.className = "secondary retry";
    retry.textContent = msg("retry");
    var cancel = document.createElement("button");
    cancel.type = "button";
    cancel.className = "danger cancel";
    cancel.textContent = msg("cancel");
    function done() { retry.remove(); cancel.remove(); }
    retry.addEventListener("click", function () {
      done();
      item.li.classList.remove("refused");
      item.state.removeAttribute("role");
      item.state.textContent = msg("uploading");
      put(item, url).then(refresh);
    });
    cancel.addEventListener("click", function () {
      var body = new URLSearchParams();
      body.set("_csrf", form.elements["_csrf"].value);
      fetch("/app/recordings/" + encodeURIComponent(item.li.getAttribute("data-doc-id")) + "/delete", {
        method: "POST", credentials: "same-origin", body: body, headers: { "Accept": "application/json" }
      }).then(function (r) {
        if (!r.ok) return;
        done();
        item.li.setAttribute("data-result", "cancelled");
        item.state.textContent = msg("cancelled");
        refresh();
      });
    });
    item.li.appendChild(retry);
    item.li.appendChild(cancel);
  }

  // refresh replaces the history with the server's current first page, so
  // new jobs show at once with their live status.
  function refresh() {
    return fetch("/app/recordings", { credentials: "same-origin" })
      .then(function (r) { return r.ok ? r.text() : null; })
      .then(function (html) {
        if (!html) return;
        var doc = new DOMParser().parseFromString(html, "text/html");
        var fresh = doc.getElementById("history-region");
        var here = document.getElementById("history-region");
        if (fresh && here) here.replaceChildren.apply(here, Array.prototype.slice.call(fresh.childNodes));
      })
      .catch(function () { /* the live statuses of a reload will do */ });
  }

  function one(item) {
    if (maxBytes && item.file.size > maxBytes) {
      fail(item, msg("toolarge"));
      return Promise.resolve();
    }
    item.state.textContent = msg("uploading");
    return create(item).then(function (res) {
      if (!res.ok) {
        fail(item, res.body.error || "");
        return null;
      }
      item.li.setAttribute("data-doc-id", res.body.docId);
      return refresh().then(function () { return put(item, res.body.uploadUrl); });
    }).catch(function () { fail(item, msg("network")); });
  }

  function start(ev) {
    ev.preventDefault();
    if (busy) return;
    var todo = items.filter(function (i) { return !i.done && !i.started; });
    if (todo.length === 0) {
      window.alert(msg("none"));
      return;
    }
    busy = true;
    todo.forEach(function (i) { i.started = true; });
    // One file at a time: each gets the whole connection, and the order of
    // the history is the order of the files.
    todo.reduce(function (p, item) { return p.then(function () { return one(item); }); }, Promise.resolve())
      .then(refresh)
      .then(function () { busy = false; input.value = ""; });
  }

  input.addEventListener("change", function () { add(input.files); });
  ["dragenter", "dragover"].forEach(function (t) {
    drop.addEventListener(t, function (ev) { ev.preventDefault(); drop.classList.add("over"); });
  });
  ["dragleave", "drop"].forEach(function (t) {
    drop.addEventListener(t, function (ev) { ev.preventDefault(); drop.classList.remove("over"); });
  });
  drop.addEventListener("drop", function (ev) {
    if (ev.dataTransfer && ev.dataTransfer.files) add(ev.dataTransfer.files);
  });
  form.addEventListener("submit", start);
})();
