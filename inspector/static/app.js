// offshoot ui: the live session page. New batches arrive as server-sent
// events whose HTML the server rendered and escaped; the page adds it.
"use strict";
document.addEventListener("DOMContentLoaded", function () {
  var timeline = document.getElementById("timeline");
  if (!timeline || !timeline.dataset.live) return;
  var chat = document.getElementById("chat");
  var status = document.getElementById("live-status");
  var base = timeline.dataset.live.replace(/&after=\d+$/, "");
  var after = Number((timeline.dataset.live.match(/&after=(\d+)$/) || [0, 0])[1]);
  var source;
  function connect() {
    source = new EventSource(base + "&after=" + after);
    source.onopen = function () { if (status) status.textContent = "live: waiting for new batches…"; };
    source.onmessage = function (e) {
      var u = JSON.parse(e.data);
      timeline.insertAdjacentHTML("beforeend", u.timeline);
      chat.insertAdjacentHTML("beforeend", u.chat);
      after = u.seq;
      timeline.dataset.seq = String(after);
      if (status) status.textContent = "live: seq " + after;
    };
    source.onerror = function () {
      if (status) status.textContent = "live: reconnecting…";
      source.close();
      setTimeout(connect, 1000);
    };
  }
  connect();
});
