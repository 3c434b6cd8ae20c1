// Fills a contribution form's empty field with 32 random bytes from this browser's
// crypto.getRandomValues (R1.7): the player's randomness never comes from the service.
// Without JavaScript the player types their own 64 hex digits instead.
"use strict";
(function () {
  const field = document.getElementById("value");
  if (!field || field.value || !window.crypto || !window.crypto.getRandomValues) return;
  const bytes = window.crypto.getRandomValues(new Uint8Array(32));
  field.value = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  field.dataset.filled = "browser";
})();
