// The recovery codes page: Download (a text file), Copy (the clipboard) and
// Print, for codes that are shown this once. Everything happens in the page:
// the codes are not sent anywhere.
"use strict";
document.addEventListener("DOMContentLoaded", () => {
  const codes = Array.from(document.querySelectorAll("#recovery-codes code"), (code) => code.textContent);
  const status = document.getElementById("keep-status");
  const text = "Recovery codes for " + location.host + " (each works once):\n\n" + codes.join("\n") + "\n";
  const say = (message) => { status.textContent = message; };

  document.getElementById("download-codes").addEventListener("click", (event) => {
    const link = document.createElement("a");
    link.href = URL.createObjectURL(new Blob([text], {type: "text/plain"}));
    link.download = event.currentTarget.dataset.file;
    document.body.appendChild(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(link.href), 1000);
    say("Downloaded " + link.download + ".");
  });

  document.getElementById("copy-codes").addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(text);
      say("Copied " + codes.length + " codes.");
    } catch (error) {
      say("Your browser did not let the page copy: select the codes and copy them.");
    }
  });

  document.getElementById("print-codes").addEventListener("click", () => window.print());
});
