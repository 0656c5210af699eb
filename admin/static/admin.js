// Commerce admin: the little the pages need beyond htmx. Every page works
// without it (the server asks for confirmation on a page of its own, the
// error box has autofocus); with it, the error box is focused and centred
// after an htmx swap too, and destructive forms ask in a dialog.
(function () {
  'use strict';

  // The error box of a form that failed (template "formerror"): focus it
  // and bring it into view, once per box, so that staff see it where they
  // are and screen readers announce it.
  function showError() {
    var box = document.getElementById('error');
    if (!box || box.dataset.shown) return;
    box.dataset.shown = '1';
    box.focus({ preventScroll: true });
    box.scrollIntoView({ block: 'center' });
  }
  document.addEventListener('DOMContentLoaded', showError);
  document.addEventListener('htmx:afterSettle', showError);

  // Forms with data-confirm (template "confirm") ask their question in the
  // dialog first; "Yes" sets their "confirmed" field and sends them again
  // (htmx or not). The listener runs before htmx's (capture phase, on the
  // document), so an unconfirmed form is never sent.
  document.addEventListener('submit', function (ev) {
    var form = ev.target;
    if (!(form instanceof HTMLFormElement) || !form.dataset.confirm) return;
    var field = form.querySelector('input[name="confirmed"]');
    if (field && field.value === 'yes') return;
    var dialog = document.getElementById('confirm-dialog');
    if (!dialog || !field || typeof dialog.showModal !== 'function') return; // the server asks instead
    ev.preventDefault();
    ev.stopPropagation();
    var submitter = ev.submitter;
    document.getElementById('confirm-question').textContent = form.dataset.confirm;
    var yes = document.getElementById('confirm-yes');
    yes.textContent = (submitter && submitter.textContent.trim()) || 'Yes';
    dialog.returnValue = '';
    dialog.onclose = function () {
      if (dialog.returnValue !== 'yes') return;
      field.value = 'yes';
      if (submitter && submitter.form === form) form.requestSubmit(submitter); else form.requestSubmit();
      setTimeout(function () { field.value = ''; }, 0); // asked again next time
    };
    dialog.showModal();
  }, true);

  // Enter in a text field sends its form with the form's main button
  // ([data-default]), not with the first button of the form (which may
  // be a builder's "Find" or "Write the rule"); a field with data-enter
  // names its own button, or "none" (a search as typed needs no button).
  document.addEventListener('keydown', function (ev) {
    var t = ev.target;
    if (ev.key !== 'Enter' || ev.defaultPrevented || ev.isComposing || !(t instanceof HTMLInputElement) || !t.form) return;
    if (/^(checkbox|radio|submit|button|reset|file|image)$/.test(t.type)) return;
    var sel = t.dataset.enter;
    var button = sel ? (sel === 'none' ? null : document.querySelector(sel)) : t.form.querySelector('[data-default]');
    if (!button && !sel) return;
    ev.preventDefault();
    if (button) t.form.requestSubmit(button);
  });
  // A form with data-drop takes a file dropped on it: into its file
  // input, and sent (the product page's image upload).
  document.addEventListener('dragover', function (ev) {
    var f = ev.target instanceof Element && ev.target.closest('form[data-drop]');
    if (!f) return;
    ev.preventDefault();
    f.classList.add('dropping');
  });
  document.addEventListener('dragleave', function (ev) {
    var f = ev.target instanceof Element && ev.target.closest('form[data-drop]');
    if (f) f.classList.remove('dropping');
  });
  document.addEventListener('drop', function (ev) {
    var f = ev.target instanceof Element && ev.target.closest('form[data-drop]');
    if (!f || !ev.dataTransfer || !ev.dataTransfer.files.length) return;
    ev.preventDefault();
    f.classList.remove('dropping');
    var input = f.querySelector('input[type=file]');
    input.files = ev.dataTransfer.files;
    f.requestSubmit();
  });
})();
