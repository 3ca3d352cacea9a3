// The console's live pages: the server says on /events that something
// changed, and the page fetches its own live part again (X-Partial), so
// nothing is reloaded and no state is kept here.
(function () {
  "use strict";
  var print = document.getElementById("print");
  if (print) { print.addEventListener("click", function () { window.print(); }); }
  var live = document.getElementById("live");
  if (!live || !window.EventSource) { return; }
  var busy = false, again = false;
  function refresh() {
    if (busy) { again = true; return; }
    busy = true;
    fetch(location.href, { headers: { "X-Partial": "1" }, credentials: "same-origin" })
      .then(function (r) { return r.ok ? r.text() : Promise.reject(r.status); })
      .then(function (html) { live.innerHTML = html; document.body.dataset.refreshed = String(Date.now()); })
      .catch(function () {})
      .then(function () { busy = false; if (again) { again = false; refresh(); } });
  }
  var es = new EventSource("/events");
  es.addEventListener("change", refresh);
  // A change between the page's making and this subscription (the
  // console still reading the records at its start, say) was not sent
  // here: fetch once when the stream opens, and again when it reopens.
  es.addEventListener("open", refresh);
})();
