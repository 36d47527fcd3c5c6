// sim-mcp web UI: keeps the server-rendered pages live and drives the control API's buttons.
// Everything shown from a session is set with textContent (never as HTML): tool arguments and
// results are untrusted text. No third-party code, no build step.
"use strict";

(function () {
  const HEADERS = { "X-Sim-MCP-UI": "1" };
  const body = document.body;
  const page = body.dataset.page;

  // ------------------------------------------------------------------------------------------ helpers

  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function byIds(...ids) {
    return ids.map(function (id) {
      return document.getElementById(id);
    });
  }

  function sessionHref(id) {
    return "/ui/sessions/" + encodeURIComponent(id);
  }

  async function api(method, url, payload) {
    const init = { method: method, headers: Object.assign({}, HEADERS), credentials: "same-origin" };
    if (payload !== undefined) {
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(payload);
    }
    const response = await fetch(url, init);
    if (response.status === 204) return null;
    let data = null;
    try {
      data = await response.json();
    } catch (e) {
      data = null;
    }
    if (!response.ok) {
      const message = data && data.error ? data.error : response.status + " " + response.statusText;
      throw new Error(message);
    }
    return data;
  }

  function ago(seconds) {
    seconds = Math.max(0, Math.floor(seconds));
    if (seconds < 60) return seconds + " s";
    if (seconds < 3600) return Math.floor(seconds / 60) + " min";
    if (seconds < 86400) return Math.floor(seconds / 3600) + " h";
    return Math.floor(seconds / 86400) + " d";
  }

  function isoTime(ts) {
    return new Date(ts * 1000).toISOString().replace("T", " ").replace(/\.\d+Z$/, "Z");
  }

  function timeNode(ts, mode) {
    if (typeof ts !== "number") return document.createTextNode("—");
    const node = el("time");
    node.dateTime = isoTime(ts);
    node.title = isoTime(ts);
    node.dataset.ts = String(ts);
    node.dataset.rel = mode;
    refreshTime(node, Date.now() / 1000);
    return node;
  }

  function refreshTime(node, now) {
    const ts = parseFloat(node.dataset.ts);
    if (isNaN(ts)) return;
    node.textContent = ago(now - ts) + (node.dataset.rel === "ago" ? " ago" : "");
  }

  function refreshTimes() {
    const now = Date.now() / 1000;
    document.querySelectorAll("time[data-rel]").forEach(function (node) {
      refreshTime(node, now);
    });
  }

  function number(n) {
    return (Number(n) || 0).toLocaleString("en-US");
  }

  function tokensText(tokens) {
    if (!tokens || typeof tokens !== "object") return "—";
    return number((Number(tokens.input) || 0) + (Number(tokens.output) || 0));
  }

  function tokensTitle(tokens) {
    if (!tokens || typeof tokens !== "object") return "";
    return "input " + number(tokens.input) + " · output " + number(tokens.output) + " · cached " + number(tokens.cached);
  }

  function rewardOf(summary) {
    let reward = summary.reward;
    if ((reward === undefined || reward === null) && summary.evaluation && typeof summary.evaluation === "object") {
      reward = summary.evaluation.reward;
    }
    return typeof reward === "number" ? reward : null;
  }

  function rewardText(summary) {
    const reward = rewardOf(summary);
    return reward === null ? "—" : String(Number(reward.toPrecision(3)));
  }

  function jsonText(value, limit) {
    let text = JSON.stringify(value, null, 2);
    if (text === undefined) text = String(value);
    limit = limit || 20000;
    if (text.length > limit) {
      text = text.slice(0, limit) + "\n… (" + number(text.length - limit) + " more characters)";
    }
    return text;
  }

  // The live indicator in the top bar, and one EventSource that reconnects after the server's "bye".
  function liveStream(url, handlers) {
    const indicator = document.getElementById("live");
    let source = null;
    function state(name, text) {
      if (!indicator) return;
      indicator.dataset.state = name;
      indicator.textContent = text;
    }
    function connect() {
      source = new EventSource(url);
      source.addEventListener("open", function () {
        state("on", "live");
      });
      source.addEventListener("error", function () {
        state("off", "reconnecting");
      });
      source.addEventListener("bye", function () {
        source.close();
        state("off", "server stopped");
        setTimeout(connect, 3000);
      });
      Object.keys(handlers).forEach(function (name) {
        source.addEventListener(name, function (event) {
          let data = null;
          try {
            data = JSON.parse(event.data);
          } catch (e) {
            return;
          }
          handlers[name](data);
        });
      });
    }
    connect();
    window.addEventListener("pagehide", function () {
      if (source) source.close();
    });
  }

  function flash(message, kind) {
    const node = document.getElementById("flash");
    if (!node) return;
    node.textContent = message;
    node.dataset.kind = kind || "info";
    node.hidden = false;
  }

  // ------------------------------------------------------------------------------------------ sessions list

  function sessionsPage() {
    const [rows, table, envFilter, textFilter, count, empty] = byIds(
      "session-rows", "sessions", "filter-env", "filter-q", "session-count", "sessions-empty");
    const cap = parseInt(table.dataset.cap, 10) || 500;
    const NO_ENV = "(none)";

    function searchText(summary) {
      return [summary.id, summary.env, summary.forked_from, summary.task]
        .filter(function (part) {
          return part;
        })
        .join(" ")
        .toLowerCase();
    }

    function cell(label, className) {
      const td = el("td", className);
      td.dataset.label = label;
      return td;
    }

    function buildRow(summary) {
      const tr = el("tr");
      tr.dataset.id = summary.id;
      tr.dataset.env = summary.env === null || summary.env === undefined ? NO_ENV : summary.env;
      tr.dataset.search = searchText(summary);
      tr.dataset.last = String(summary.last_used_at || 0);

      const id = cell("Session", "id");
      const link = el("a", null, summary.id);
      link.href = sessionHref(summary.id);
      id.appendChild(link);
      if (summary.forked_from) {
        const sub = el("span", "sub", "fork of ");
        const parent = el("a", null, summary.forked_from);
        parent.href = sessionHref(summary.forked_from);
        sub.appendChild(parent);
        id.appendChild(sub);
      }
      tr.appendChild(id);

      const env = cell("Environment");
      if (summary.env !== null && summary.env !== undefined) env.textContent = summary.env;
      else {
        // Unbound (named in the URL of /mcp): the environments it holds state in, if any yet.
        const worlds = Array.isArray(summary.worlds) ? summary.worlds : [];
        if (worlds.length) env.appendChild(document.createTextNode(worlds.join(", ") + " "));
        env.appendChild(el("span", "sub", "(unbound)"));
      }
      tr.appendChild(env);

      const age = cell("Age");
      age.appendChild(timeNode(summary.created_at, "age"));
      tr.appendChild(age);
      const last = cell("Last activity");
      last.appendChild(timeNode(summary.last_used_at, "ago"));
      tr.appendChild(last);

      tr.appendChild(Object.assign(cell("Calls", "num"), { textContent: number(summary.events) }));
      const errors = Number(summary.errors) || 0;
      tr.appendChild(Object.assign(cell("Errors", errors ? "num bad" : "num"), { textContent: number(errors) }));
      const tokens = cell("Tokens", "num");
      tokens.textContent = tokensText(summary.tokens);
      tokens.title = tokensTitle(summary.tokens);
      tr.appendChild(tokens);
      tr.appendChild(Object.assign(cell("Reward", "num"), { textContent: rewardText(summary) }));
      return tr;
    }

    function visible(tr) {
      const env = envFilter.value;
      const text = textFilter.value.trim().toLowerCase();
      if (env && tr.dataset.env !== env) return false;
      return !text || tr.dataset.search.indexOf(text) !== -1;
    }

    function applyFilter() {
      let shown = 0;
      Array.prototype.forEach.call(rows.rows, function (tr) {
        tr.hidden = !visible(tr);
        if (!tr.hidden) shown += 1;
      });
      count.textContent = number(shown);
      empty.hidden = shown > 0;
    }

    function upsert(summary) {
      if (!summary || typeof summary.id !== "string") return;
      const tr = buildRow(summary);
      const old = rows.querySelector('tr[data-id="' + CSS.escape(summary.id) + '"]');
      if (old) old.remove();
      // Newest activity first: the changed session goes above every row used less recently.
      const lastUsed = Number(summary.last_used_at) || 0;
      let before = null;
      for (const row of rows.rows) {
        if ((parseFloat(row.dataset.last) || 0) <= lastUsed) {
          before = row;
          break;
        }
      }
      rows.insertBefore(tr, before);
      while (rows.rows.length > cap) rows.deleteRow(rows.rows.length - 1);
      tr.classList.add("flash-row");
      applyFilter();
    }

    function remove(data) {
      const old = rows.querySelector('tr[data-id="' + CSS.escape(String(data.id)) + '"]');
      if (old) old.remove();
      applyFilter();
    }

    async function resync() {
      try {
        const data = await api("GET", "/sessions");
        const sessions = data.sessions.slice().sort(function (a, b) {
          return (b.last_used_at || 0) - (a.last_used_at || 0);
        });
        rows.replaceChildren.apply(rows, sessions.slice(0, cap).map(buildRow));
        applyFilter();
      } catch (e) {
        // The next change tries again.
      }
    }

    function syncUrl() {
      const params = new URLSearchParams();
      if (envFilter.value) params.set("env", envFilter.value);
      if (textFilter.value.trim()) params.set("q", textFilter.value.trim());
      const query = params.toString();
      history.replaceState(null, "", "/ui" + (query ? "?" + query : ""));
    }

    envFilter.addEventListener("change", function () {
      applyFilter();
      syncUrl();
    });
    textFilter.addEventListener("input", function () {
      applyFilter();
      syncUrl();
    });
    textFilter.form.addEventListener("submit", function (event) {
      event.preventDefault();
      applyFilter();
      syncUrl();
    });
    applyFilter();
    liveStream("/ui/events", { session: upsert, deleted: remove, resync: resync });
  }

  // ------------------------------------------------------------------------------------------ one session

  // Shown even when empty (no arguments, no result); any other empty field (no rejected answers) is left out.
  const ALWAYS_SHOWN = new Set(["arguments", "result"]);
  function isEmpty(value) {
    if (value === null || value === undefined || value === "") return true;
    if (Array.isArray(value)) return value.length === 0;
    return typeof value === "object" && Object.keys(value).length === 0;
  }
  const HEAD_FIELDS = new Set([
    "seq", "at", "kind", "environment", "tool", "is_error", "state_patch", "backend", "latency_ms", "tokens",
    "note", "fault", "failed",
  ]);

  function shown(value) {
    if (typeof value === "string") return value.length > 20000 ? value.slice(0, 20000) + "…" : value;
    return jsonText(value);
  }

  function eventCard(event) {
    const kind = event.kind || "tool_call";
    const li = el("li", "event");
    li.classList.add(/^[A-Za-z0-9_]+$/.test(kind) ? "kind-" + kind : "kind-other");
    if (event.is_error) li.classList.add("error");
    li.dataset.seq = String(event.seq);
    if (typeof event.at === "number") li.dataset.at = String(event.at);
    li.id = "event-" + event.seq;

    const head = el("a", "event-head");
    head.href = "?event=" + encodeURIComponent(event.seq) + "#diff-panel";
    head.dataset.seq = String(event.seq);
    head.appendChild(el("span", "seq", "#" + event.seq));
    head.appendChild(document.createTextNode(" "));
    head.appendChild(el("span", "tool", event.tool || kind));
    head.appendChild(document.createTextNode(" "));
    if (event.environment) head.appendChild(el("span", "badge env", event.environment));
    if (kind !== "tool_call") head.appendChild(el("span", "badge kind", kind));
    if (event.is_error) head.appendChild(el("span", "badge error", "error"));
    if (event.fault) head.appendChild(el("span", "badge fault", "fault: " + event.fault));
    if (event.failed) {
      const failed = el("span", "badge fault", "not applied");
      failed.title = "no valid outcome: nothing was applied";
      head.appendChild(failed);
    }
    const meta = el("span", "meta");
    const parts = [];
    if (typeof event.at === "number") {
      const time = el("time", null, isoTime(event.at).slice(11));
      time.dateTime = isoTime(event.at);
      time.title = isoTime(event.at);
      parts.push(time);
    }
    if (typeof event.latency_ms === "number") parts.push(document.createTextNode(number(Math.round(event.latency_ms)) + " ms"));
    if (event.tokens && typeof event.tokens === "object") {
      const tokens = el("span", null, tokensText(event.tokens) + " tok");
      tokens.title = tokensTitle(event.tokens);
      parts.push(tokens);
    }
    if (event.backend) parts.push(document.createTextNode(event.backend));
    parts.forEach(function (part, index) {
      if (index) meta.appendChild(document.createTextNode(" · "));
      meta.appendChild(part);
    });
    head.appendChild(meta);
    li.appendChild(head);

    const eventBody = el("div", "event-body");
    Object.keys(event).forEach(function (name) {
      if (HEAD_FIELDS.has(name) || (!ALWAYS_SHOWN.has(name) && isEmpty(event[name]))) return;
      const field = el("div", "field");
      field.appendChild(el("span", "label", name));
      field.appendChild(el("pre", null, shown(event[name])));
      eventBody.appendChild(field);
    });
    if (event.note) eventBody.appendChild(el("p", "event-note", event.note));
    li.appendChild(eventBody);
    return li;
  }

  function renderDiff(view) {
    const root = el("div", "diff");
    root.dataset.seq = String(view.seq);
    const title = el("h3", null, "After ");
    title.appendChild(el("span", "seq", "#" + view.seq));
    title.appendChild(document.createTextNode(" " + (view.tool || view.kind || "event") + (view.environment ? " · " + view.environment : "")));
    root.appendChild(title);
    if (view.error) root.appendChild(el("p", "warning", view.error));
    if (view.warning) root.appendChild(el("p", "warning", view.warning));
    if (view.message) root.appendChild(el("p", "hint", view.message));
    const changes = view.changes || [];
    if (changes.length) {
      const list = el("ul", "changes");
      changes.forEach(function (change) {
        const item = el("li", "change change-" + (/^[a-z]+$/.test(change.kind) ? change.kind : "other"));
        item.dataset.path = change.path;
        item.appendChild(el("span", "kind", change.kind));
        item.appendChild(document.createTextNode(" "));
        item.appendChild(el("code", "path", change.path || "/"));
        if (change.before !== null && change.before !== undefined) {
          item.appendChild(document.createTextNode(" "));
          item.appendChild(el("code", "before", change.before));
        }
        if (change.before !== null && change.before !== undefined && change.after !== null && change.after !== undefined) {
          item.appendChild(document.createTextNode(" →"));
        }
        if (change.after !== null && change.after !== undefined) {
          item.appendChild(document.createTextNode(" "));
          item.appendChild(el("code", "after", change.after));
        }
        list.appendChild(item);
      });
      root.appendChild(list);
    } else if (view.environment && !view.error) {
      root.appendChild(el("p", "hint", "This event did not change the state."));
    }
    const lines = view.lines || [];
    if (lines.length) {
      const legend = el("p", "legend");
      [["line-added", "added"], ["line-new", "changed"], ["line-old", "was"], ["line-removed", "removed"]].forEach(
        function (pair) {
          legend.appendChild(el("span", pair[0], pair[1]));
          legend.appendChild(document.createTextNode(" "));
        }
      );
      root.appendChild(legend);
      const pre = el("pre", "state");
      pre.id = "state-view";
      lines.forEach(function (line) {
        const row = el("span", "line line-" + (/^[a-z]+$/.test(line.mark) ? line.mark : "same"), line.text);
        row.dataset.path = line.path || "";
        pre.appendChild(row);
      });
      root.appendChild(pre);
    }
    if (view.skipped) root.appendChild(el("p", "note", number(view.skipped) + " more lines not shown."));
    if (view.patch) {
      const details = el("details", "patch");
      details.appendChild(el("summary", null, "Patch (RFC 6902)"));
      details.appendChild(el("pre", null, view.patch));
      root.appendChild(details);
    }
    return root;
  }

  function sessionPage() {
    const id = body.dataset.session;
    const base = "/sessions/" + encodeURIComponent(id);
    const [timeline, timelineEmpty, timelineCount, diff, diffPanel] = byIds(
      "timeline", "timeline-empty", "timeline-count", "diff", "diff-panel");
    let known = parseInt(body.dataset.events, 10) || 0;
    let selected = body.dataset.selected ? parseInt(body.dataset.selected, 10) : null;
    let gone = false;
    const lastCard = timeline.lastElementChild;
    let lastAt = lastCard && lastCard.dataset.at ? parseFloat(lastCard.dataset.at) : null;

    function markSelected() {
      timeline.querySelectorAll("li.event").forEach(function (li) {
        li.classList.toggle("selected", selected !== null && li.dataset.seq === String(selected));
      });
    }

    async function select(seq, scroll) {
      selected = seq;
      markSelected();
      history.replaceState(null, "", "?event=" + seq);
      try {
        const view = await api("GET", "/ui/api/sessions/" + encodeURIComponent(id) + "/diff?seq=" + seq);
        diff.replaceChildren(renderDiff(view));
      } catch (e) {
        diff.replaceChildren(el("p", "warning", "Could not load the state: " + e.message));
      }
      if (scroll && window.matchMedia("(max-width: 899px)").matches) {
        diffPanel.scrollIntoView({ behavior: "smooth", block: "start" });
      }
    }

    // A changed path in the list: show its line in the state below.
    diff.addEventListener("click", function (event) {
      const change = event.target.closest("li.change");
      if (!change) return;
      const line = diff.querySelector('.line[data-path="' + CSS.escape(change.dataset.path) + '"]:not(.line-same)');
      if (line) {
        line.scrollIntoView({ behavior: "smooth", block: "center" });
        line.classList.add("focus");
        setTimeout(function () {
          line.classList.remove("focus");
        }, 1500);
      }
    });

    timeline.addEventListener("click", function (event) {
      const head = event.target.closest("a.event-head");
      if (!head || event.metaKey || event.ctrlKey || event.shiftKey) return;
      event.preventDefault();
      select(parseInt(head.dataset.seq, 10), true);
    });

    function updateStats(summary) {
      document.getElementById("stat-events").textContent = number(summary.events);
      const errors = document.getElementById("stat-errors");
      errors.textContent = number(summary.errors);
      const tokens = document.getElementById("stat-tokens");
      const span = el("span", null, tokensText(summary.tokens));
      span.title = tokensTitle(summary.tokens);
      tokens.replaceChildren(span);
      document.getElementById("stat-reward").textContent = rewardText(summary);
      const snapshots = summary.snapshots || [];
      document.getElementById("stat-snapshots").textContent = snapshots.length ? snapshots.join(", ") : "—";
      document.getElementById("stat-last").replaceChildren(timeNode(summary.last_used_at, "ago"));
      const target = document.getElementById("reset-target");
      const current = target.value;
      const options = [new Option("creation state", "")].concat(
        snapshots.map(function (name) {
          return new Option("snapshot " + name, name);
        })
      );
      target.replaceChildren.apply(target, options);
      target.value = snapshots.indexOf(current) !== -1 ? current : "";
    }

    function showEvents(events, replace) {
      const cards = events.map(eventCard);
      if (replace) timeline.replaceChildren.apply(timeline, cards);
      else cards.forEach(function (card) {
        timeline.appendChild(card);
      });
      if (events.length) {
        known = events[events.length - 1].seq;
        lastAt = events[events.length - 1].at;
      } else if (replace) {
        known = 0;
        lastAt = null;
      }
      timelineEmpty.hidden = timeline.children.length > 0;
      markSelected();
    }

    // Updates one at a time, in order: each one reads the log from where the last one left it.
    let queue = Promise.resolve();
    function enqueue(summary, force) {
      queue = queue.then(function () {
        return refresh(summary, force);
      });
      return queue;
    }

    async function refresh(summary, force) {
      updateStats(summary);
      timelineCount.textContent = number(summary.events);
      try {
        if (summary.events > known) {
          const data = await api("GET", base + "/events?last=" + (summary.events - known));
          const fresh = data.events;
          if (fresh.length && fresh[0].seq === known + 1) {
            showEvents(fresh, false);
            return;
          }
        } else if (summary.events === known && !force) {
          // A snapshot leaves the log as it was; a reset to a snapshot of the same length does not.
          const data = await api("GET", base + "/events?last=1");
          const last = data.events[data.events.length - 1];
          if (!last || (last.seq === known && last.at === lastAt)) return;
        }
        // A reset (or a restored snapshot): the log is another one now.
        const data = await api("GET", base + "/events?last=1000");
        showEvents(data.events, true);
        if (selected !== null && !timeline.querySelector('li[data-seq="' + selected + '"]')) {
          selected = null;
          diff.replaceChildren(el("p", "hint", "Select an event to see the world state after it, against the state before it."));
        }
      } catch (e) {
        flash("Could not load new events: " + e.message, "error");
      }
    }

    function markGone() {
      gone = true;
      document.getElementById("gone").hidden = false;
      document.querySelectorAll(".actions button, .actions select, .actions input").forEach(function (node) {
        node.disabled = true;
      });
    }

    document.getElementById("reset-form").addEventListener("submit", async function (event) {
      event.preventDefault();
      const snapshot = document.getElementById("reset-target").value;
      const what = snapshot ? "snapshot " + snapshot : "its creation state";
      if (!window.confirm("Reset session " + id + " to " + what + "?")) return;
      try {
        const summary = await api("POST", base + "/reset", snapshot ? { snapshot: snapshot } : {});
        flash("Reset to " + what + ".", "ok");
        await enqueue(summary, true);
      } catch (e) {
        flash("Reset failed: " + e.message, "error");
      }
    });

    document.getElementById("snapshot-form").addEventListener("submit", async function (event) {
      event.preventDefault();
      const input = document.getElementById("snapshot-name");
      const name = input.value.trim();
      if (!name) return;
      try {
        const summary = await api("POST", base + "/snapshots", { name: name });
        input.value = "";
        updateStats(summary);
        flash("Snapshot " + name + " taken after " + number(summary.events) + " events.", "ok");
      } catch (e) {
        flash("Snapshot failed: " + e.message, "error");
      }
    });

    document.getElementById("fork").addEventListener("click", async function () {
      try {
        const fork = await api("POST", base + "/fork", {});
        window.location.assign(sessionHref(fork.id));
      } catch (e) {
        flash("Fork failed: " + e.message, "error");
      }
    });

    document.getElementById("delete").addEventListener("click", async function () {
      if (!window.confirm("Delete session " + id + "? This cannot be undone.")) return;
      try {
        await api("DELETE", base);
        window.location.assign("/ui");
      } catch (e) {
        flash("Delete failed: " + e.message, "error");
      }
    });

    liveStream("/ui/events?session=" + encodeURIComponent(id), {
      session: function (summary) {
        if (!gone && summary.id === id) enqueue(summary, false);
      },
      deleted: function (data) {
        if (data.id === id) markGone();
      },
      resync: async function () {
        try {
          enqueue(await api("GET", base), true);
        } catch (e) {
          markGone();
        }
      },
    });
  }

  // ------------------------------------------------------------------------------------------ environments

  function environmentsPage() {
    document.querySelectorAll("button.new-session").forEach(function (button) {
      button.addEventListener("click", async function () {
        try {
          const session = await api("POST", "/sessions", { env: button.dataset.env });
          window.location.assign(sessionHref(session.id));
        } catch (e) {
          button.textContent = "Failed: " + e.message;
        }
      });
    });
  }

  // ------------------------------------------------------------------------------------------ start

  setInterval(refreshTimes, 10000);
  if (page === "sessions") sessionsPage();
  else if (page === "session") sessionPage();
  else if (page === "environments") environmentsPage();
})();
