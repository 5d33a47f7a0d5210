// kb's search box: Pagefind's library from this locale's own bundle (<locale>/pagefind/), no
// other script, nothing from elsewhere. Without JavaScript the box stays hidden.
"use strict";
(function () {
  const form = document.querySelector("form.site-search");
  if (!form) return;
  const input = form.querySelector("input");
  const status = form.querySelector(".search-status");
  const list = form.querySelector(".search-results");
  form.hidden = false;
  if (location.protocol === "file:") {
    // Browsers refuse modules and fetches from file:// pages: Pagefind needs a server.
    input.disabled = true;
    status.textContent = form.dataset.served;
    return;
  }
  let library = null;
  let asked = 0;
  function pagefind() {
    if (library === null) {
      // A classic script resolves import() against its own address: the page's is meant.
      library = import(new URL(form.dataset.bundle, document.baseURI).href).then(async (module) => {
        // On this thread: Pagefind's worker script would add 12 KB to the first search.
        await module.options({ excerptLength: 0, noWorker: true });
        await module.init();
        form.dataset.ready = "true";
        return module;
      });
    }
    return library;
  }
  function show(results, query) {
    list.replaceChildren();
    for (const data of results) {
      const item = document.createElement("li");
      const link = document.createElement("a");
      link.href = data.url; // the bundle's folder and the page's address in it
      link.textContent = data.meta.title;
      item.append(link);
      if (data.meta.english && data.meta.english !== data.meta.title) {
        const english = document.createElement("span");
        english.className = "search-english";
        english.lang = "en";
        english.textContent = data.meta.english;
        item.append(english);
      }
      list.append(item);
    }
    status.textContent = results.length ? "" : form.dataset.none;
    form.dataset.done = query;
  }
  async function search() {
    const query = input.value.trim();
    const number = ++asked;
    if (!query) {
      list.replaceChildren();
      status.textContent = "";
      return;
    }
    const found = await (await pagefind()).search(query);
    const results = await Promise.all(found.results.slice(0, 10).map((r) => r.data()));
    if (number === asked) show(results, query);
  }
  let timer = 0;
  input.addEventListener("focus", pagefind, { once: true });
  input.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(search, 120);
  });
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    clearTimeout(timer);
    search();
  });
})();
