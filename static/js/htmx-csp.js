/* htmx under the Content-Security-Policy (no eval, no inline <style>).
 *
 * Set from a file loaded right after htmx rather than a <meta name=
 * "htmx-config"> tag: a page may carry its own htmx-config meta (the console
 * does), and htmx reads only the first one. htmx applies its meta config and
 * inserts its indicator <style> on DOMContentLoaded, after every deferred
 * script has run, so these values are in place in time; a page's meta config
 * may set other keys without undoing them.
 */
(function () {
  "use strict";
  if (!window.htmx) return;
  htmx.config.allowEval = false;             // hx-trigger filters, hx-on, js: values need eval
  htmx.config.includeIndicatorStyles = false; // an inline <style> element
})();
