// The page's only script: filters, jumping to a finding's turn, and the rule explanations.
// It never builds HTML from strings: it shows, hides, opens and clones elements of the page.
(function () {
  "use strict";
  var all = function (selector, root) {
    return Array.prototype.slice.call((root || document).querySelectorAll(selector));
  };

  var code = document.getElementById("filter-code");
  var severity = document.getElementById("filter-severity");
  var file = document.getElementById("filter-file");
  var count = document.getElementById("filter-count");

  function applyFilters() {
    var c = code ? code.value : "", s = severity ? severity.value : "", f = file ? file.value : "";
    var shown = 0, total = 0;
    all("[data-filtered]").forEach(function (group) {
      var any = false;
      all("[data-code]", group).forEach(function (row) {
        var match = (!c || row.dataset.code === c) && (!s || row.dataset.severity === s);
        row.classList.toggle("dimmed", !match);
        any = any || match;
      });
      group.hidden = !(any && (!f || group.dataset.file === f));
      if (group.matches("article.conv")) {
        total += 1;
        if (!group.hidden) shown += 1;
      }
    });
    if (count) count.textContent = shown + " of " + total + " conversations shown";
  }
  [code, severity, file].forEach(function (select) {
    if (select) select.addEventListener("change", applyFilters);
  });

  function reveal(id) {
    var target = document.getElementById(id);
    if (!target) return false;
    for (var node = target.parentElement; node; node = node.parentElement) {
      if (node.tagName === "DETAILS") node.open = true;
    }
    all(".current").forEach(function (el) { el.classList.remove("current"); });
    target.classList.add("current");
    target.scrollIntoView({ block: "center" });
    return true;
  }

  var dialog = document.getElementById("explain");
  var dialogBody = document.getElementById("explain-body");
  function explain(rule) {
    var source = document.getElementById("rule-" + rule);
    if (!source || !dialog || typeof dialog.showModal !== "function") return false;
    var copy = source.cloneNode(true);
    copy.removeAttribute("id");
    copy.open = true;
    dialogBody.replaceChildren(copy);
    dialog.showModal();
    return true;
  }
  var close = document.getElementById("explain-close");
  if (close) close.addEventListener("click", function () { dialog.close(); });

  document.addEventListener("click", function (event) {
    var link = event.target.closest ? event.target.closest("a[href^='#']") : null;
    if (!link) return;
    var done = link.dataset.rule ? explain(link.dataset.rule)
      : reveal(decodeURIComponent(link.getAttribute("href").slice(1)));
    if (done) {
      event.preventDefault();
      if (!link.dataset.rule) {
        try { history.replaceState(null, "", link.getAttribute("href")); } catch (e) { /* file: URLs */ }
      }
    }
  });

  var folds = document.getElementById("unfold-all");
  if (folds) {
    folds.addEventListener("click", function () {
      var open = folds.dataset.open !== "1";
      all("details.timeline, details.fold").forEach(function (d) { d.open = open; });
      folds.dataset.open = open ? "1" : "0";
      folds.textContent = open ? "Fold all" : "Unfold all";
    });
  }

  if (location.hash.length > 1) reveal(decodeURIComponent(location.hash.slice(1)));
  applyFilters();
})();
