/* New game form: counts the entered nicknames and adds known ones on click. */
(function () {
  "use strict";
  var ta = document.getElementById("players-input"), out = document.querySelector("[data-count]");
  if (!ta || !out) return;
  function lines() { return ta.value.split("\n").map(function (s) { return s.trim(); }).filter(Boolean); }
  function count() { out.textContent = lines().length; }
  ta.addEventListener("input", count); count();
  document.querySelectorAll("[data-add-nick]").forEach(function (b) {
    b.addEventListener("click", function () {
      var l = lines(); if (l.indexOf(b.dataset.addNick) >= 0 || l.length >= 10) return;
      l.push(b.dataset.addNick); ta.value = l.join("\n") + "\n"; count(); b.disabled = true;
    });
  });
})();
