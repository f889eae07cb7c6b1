// The play page: the terminal (xterm.js) on the seat's shell, the chat, the features, the finish
// button. Everything from the server is put in as text (textContent), never as HTML.
/* global Terminal -- xterm.js, loaded before this script */
'use strict';
(function () {
  const token = new URLSearchParams(location.search).get('token') || '';
  const $ = (id) => document.getElementById(id);
  const term = new Terminal({ cols: 100, rows: 30, convertEol: false, scrollback: 5000, fontSize: 13 });
  term.open($('terminal'));
  let ws;
  let me = '';
  let state = 'waiting';
  let shown = 0;

  const send = (event) => {
    if (ws && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(event));
  };

  /** The terminal fills its pane: a cell's size measured in the terminal's own font. */
  function fit() {
    const probe = document.createElement('span');
    probe.style.cssText = `position:absolute;visibility:hidden;white-space:pre;font-family:${term.options.fontFamily};font-size:${term.options.fontSize}px`;
    probe.textContent = 'W'.repeat(50);
    document.body.append(probe);
    const cell = { width: probe.getBoundingClientRect().width / 50, height: probe.getBoundingClientRect().height };
    probe.remove();
    const pane = $('terminal').getBoundingClientRect();
    if (cell.width > 0 && cell.height > 0 && pane.width > 0) {
      term.resize(Math.max(20, Math.floor(pane.width / cell.width) - 2), Math.max(5, Math.floor(pane.height / cell.height) - 1));
    }
    send({ type: 'resize', cols: term.cols, rows: term.rows });
  }

  function showState(next) {
    state = next;
    const label =
      {
        waiting: 'starting your container…',
        working: 'working',
        finished: 'finished: your patch is submitted',
        stopped: 'stopped: the task ended (see where play runs)',
      }[next] || next;
    $('state').textContent = label;
    $('state').className = next;
    $('finish').disabled = next !== 'working';
    $('send').disabled = next !== 'working';
  }

  function addChat(entry) {
    const li = document.createElement('li');
    li.className = entry.from === me ? 'mine' : 'theirs';
    const from = document.createElement('span');
    from.className = 'from';
    from.textContent = entry.from === me ? 'you' : entry.from;
    const time = document.createElement('time');
    time.textContent = new Date(entry.at).toLocaleTimeString();
    const body = document.createElement('span');
    body.className = 'body';
    body.textContent = entry.body;
    li.append(from, body, time);
    $('chat').append(li);
    $('chat').scrollTop = $('chat').scrollHeight;
  }

  function hello(view) {
    me = view.agentId;
    $('seat').textContent = 'you are ' + view.agentId;
    $('partners').textContent = view.partners.length ? view.partners.join(', ') : 'your partner';
    const features = $('features');
    features.replaceChildren(
      ...view.features.map((f) => {
        const pre = document.createElement('div');
        pre.className = 'feature';
        pre.textContent = 'Feature ' + f.id + '\n\n' + f.description;
        return pre;
      }),
    );
    if (!view.features.length) features.textContent = 'The task is starting…';
    for (const entry of view.chat.slice(shown)) addChat(entry);
    shown = view.chat.length;
    showState(view.state);
  }

  function connect() {
    ws = new WebSocket('ws://' + location.host + '/ws?token=' + encodeURIComponent(token));
    ws.binaryType = 'arraybuffer';
    ws.onopen = () => {
      // The server replays the terminal's recent output: start from a clean screen.
      term.reset();
      $('chat').replaceChildren();
      shown = 0;
      $('notice').textContent = '';
      fit();
    };
    ws.onmessage = (message) => {
      if (message.data instanceof ArrayBuffer) {
        term.write(new Uint8Array(message.data));
        return;
      }
      const event = JSON.parse(message.data);
      if (event.type === 'hello') hello(event);
      else if (event.type === 'chat') {
        addChat(event.entry);
        shown++;
      } else if (event.type === 'error') $('notice').textContent = event.text;
    };
    ws.onclose = () => {
      if (state !== 'finished' && state !== 'stopped') $('notice').textContent = 'disconnected: reconnecting…';
      setTimeout(connect, 1000);
    };
  }

  term.onData((data) => send({ type: 'input', data }));
  $('say').addEventListener('submit', (e) => {
    e.preventDefault();
    const body = $('message').value;
    if (!body.trim()) return;
    send({ type: 'say', body });
    $('message').value = '';
  });
  $('message').addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) $('say').requestSubmit();
  });
  $('finish').addEventListener('click', () => {
    $('finish').disabled = true;
    send({ type: 'finish' });
  });
  let lastActive = 0;
  for (const kind of ['mousemove', 'keydown', 'wheel', 'focus']) {
    window.addEventListener(kind, () => {
      if (Date.now() - lastActive < 10000) return;
      lastActive = Date.now();
      send({ type: 'active' });
    });
  }
  window.addEventListener('resize', fit);
  connect();
})();
