/* Small form behaviours for every page, as a file rather than inline
 * handlers (the Content-Security-Policy allows no inline script):
 *
 *   <button data-set-field="rotate" data-set-value="1">  sets the form's field
 *       `rotate` to "1" before the form submits (one button, two values);
 *   <select data-autosubmit>  submits its form when the choice changes.
 */
(function () {
  "use strict";
  document.addEventListener("click", function (e) {
    var btn = e.target instanceof Element ? e.target.closest("[data-set-field]") : null;
    if (!btn || !btn.form) return;
    var field = btn.form.elements.namedItem(btn.dataset.setField);
    if (field && "value" in field) field.value = btn.dataset.setValue || "";
  });
  document.addEventListener("change", function (e) {
    var el = e.target;
    if (el instanceof HTMLSelectElement && el.hasAttribute("data-autosubmit") && el.form) el.form.requestSubmit();
  });
})();
