// The translation editor's "copy to EN" buttons: put the German source into the box (names
// and brands that stay as they are); the translator still saves the page.
document.addEventListener("click", (event) => {
  const button = event.target.closest("button.copy-source");
  if (!button) return;
  const source = document.getElementById(button.dataset.source);
  const target = document.getElementById(button.dataset.target);
  if (!source || !target) return;
  target.value = source.textContent.trim();
  target.dispatchEvent(new Event("input", { bubbles: true }));
  target.focus();
});
