// hyscribe web application: a recording still waiting for its file (its
// upload was cut short and the page reloaded) takes the file again. The
// server signs a fresh address for the same job; the file is PUT there
// with a progress bar, and the page reloads to show the job moving on.
(function () {
  "use strict";
  var form = document.getElementById("reupload");
  if (!form) return;
  var input = document.getElementById("reupload-file");
  var bar = document.getElementById("reupload-progress");
  var state = document.getElementById("reupload-state");
  var max = parseInt(form.getAttribute("data-max"), 10) || 0;
  function msg(n) { return form.getAttribute("data-msg-" + n) || n; }
  function failed(text) { state.textContent = msg("failed") + ": " + text; state.setAttribute("role", "alert"); }
  form.hidden = false;
  input.addEventListener("change", function () {
    var file = input.files[0];
    if (!file) return;
    if (max && file.size > max) { failed(msg("toolarge")); return; }
    state.removeAttribute("role");
    state.textContent = msg("uploading");
    var body = new URLSearchParams();
    body.set("_csrf", form.elements["_csrf"].value);
    fetch(form.getAttribute("action"), { method: "POST", credentials: "same-origin", body: body, headers: { "Accept": "application/json" } })
      .then(function (r) { return r.json().then(function (j) { return { ok: r.ok, body: j }; }); })
      .then(function (res) {
        if (!res.ok) { failed(res.body.error || ""); return; }
        var xhr = new XMLHttpRequest();
        xhr.open("PUT", res.body.uploadUrl);
        xhr.upload.addEventListener("progress", function (ev) {
          if (ev.lengthComputable) bar.value = Math.round(ev.loaded / ev.total * 100);
        });
        xhr.addEventListener("load", function () {
          if (xhr.status >= 200 && xhr.status < 300) { bar.value = 100; window.location.reload(); return; }
          var text = xhr.statusText;
          try { text = JSON.parse(xhr.responseText).error || text; } catch (e) { /* an object store's XML */ }
          failed(text + " (" + xhr.status + ")");
        });
        xhr.addEventListener("error", function () { failed(msg("network")); });
        xhr.send(file);
      })
      .catch(function () { failed(msg("network")); });
  });
})();
