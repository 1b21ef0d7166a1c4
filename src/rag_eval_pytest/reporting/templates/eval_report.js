(function () {
  "use strict";
  var bar = document.getElementById("filters");
  var items = document.querySelectorAll("[data-status]");
  var shown = document.getElementById("shown");
  var pick = function (id) { return document.getElementById(id).value; };
  function keep(item, status, tag, cause) {
    var own = item.getAttribute("data-status");
    if (status === "failing" ? own !== "failed" && own !== "error" : status && own !== status) {
      return false;
    }
    if (tag && (" " + item.getAttribute("data-tags") + " ").indexOf(" " + tag + " ") < 0) {
      return false;
    }
    return !cause || item.getAttribute("data-cause") === cause;
  }
  function apply() {
    var status = pick("f-status"), tag = pick("f-tag"), cause = pick("f-cause"), count = 0;
    for (var i = 0; i < items.length; i++) {
      var ok = keep(items[i], status, tag, cause);
      if (items[i].hidden === ok) { items[i].hidden = !ok; }
      if (ok) { count++; }
    }
    shown.textContent = count + " of " + items.length + " cases shown";
  }
  bar.addEventListener("change", apply);
  bar.hidden = false;
  if (pick("f-status") || pick("f-tag") || pick("f-cause")) {
    apply();  // a filter the browser kept from before a reload
  } else {
    shown.textContent = items.length + " of " + items.length + " cases shown";
  }
})();
