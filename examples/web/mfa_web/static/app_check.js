// App check: before a form marked data-app-check="<action>" is sent, fetch a
// short-lived token for that action from the server and put it in the form's
// app_credential field. libmfa sends no SMS without it (see app_check.py).
"use strict";
document.addEventListener("DOMContentLoaded", () => {
  for (const form of document.querySelectorAll("form[data-app-check]")) {
    form.addEventListener("submit", async (event) => {
      const field = form.querySelector("input[name=app_credential]");
      if (field.value) return;
      event.preventDefault();
      const error = form.querySelector(".app-check-error");
      const csrf = form.querySelector("input[name=csrf_token]");
      try {
        const response = await fetch("/app-check/token", {
          method: "POST",
          credentials: "same-origin",
          headers: {"Content-Type": "application/json", "X-CSRF-Token": csrf ? csrf.value : ""},
          body: JSON.stringify({action: form.dataset.appCheck}),
        });
        if (!response.ok) throw new Error("status " + response.status);
        field.value = (await response.json()).token;
        form.submit();
      } catch (failure) {
        if (error) {
          error.textContent = "The app check failed (" + failure.message + "). Reload the page and try again.";
          error.hidden = false;
        }
      }
    });
  }
});
