#!/usr/bin/env python3
"""move_cost.py - a move's instructions on the event loop, from callgrind
profiles of chess-server's main thread (tests/bench/move_cost.sh makes
them).

    move_cost.py [--base BASE_FILE] [--move-fn game_move_lag] [--top 25]
                 [--callers FN]... [--callees FN]... CALLGRIND_FILE

The moves are the calls of --move-fn (game_move_lag: every `move` message
that reached a game); every figure is divided by them. With --base, a
profile of a shorter run of the same load is subtracted first, function
by function: what both runs did alike (start-up, connections, the games'
set-up, shutdown) cancels, and what is left is the moves the longer run
played beyond the shorter one's. Prints one key=value line (moves,
ir_total, ir_per_move), then the
instructions a move costs by group (where the instruction's source line
is when the binary has debug information, else the function's object),
the functions with the most instructions of their own, and the inclusive
cost of a few functions of the move path. Instructions in the kernel are
not counted: callgrind sees user space only.
"""
import argparse
import collections
import re
import sys

# source files of chess-server -> group; first match wins
FILE_GROUPS = [
    (r'common/chess/text\.c$', 'wire codec: parse and render (proto.c)'),
    (r'common/chess/', 'rules core (common/chess)'),
    (r'common/opening\.c$', 'opening names (common/opening.c)'),
    (r'common/proto(_\w+)?\.c$', 'wire codec: parse and render (proto.c)'),
    (r'server/game/game(_\w+)?\.[ch]$|common/clock\.[ch]$',
     'the game: state, clock, record keeping (game*.[ch], clock.[ch])'),
    (r'server/hub/\w+\.c$|server/lib/(bucket|table|ratelimit|grow)\.c$'
     r'|server/game/(holds|lobby)\.c$',
     'hub: routing, budgets, holds, metrics'),
    (r'server/store/store(_queue)?\.c$',
     'journal enqueue (store.c, store_queue.c)'),
    (r'server/(net|lib|app)/(conn|net|msgbuf|wire|frames|tcp|netstats'
     r'|hist|main|wiring|web|lwslog|log)\.c$|common/(timerq|sysclock)\.c$',
     'network glue: queues, timers, callbacks (conn.c, net.c, msgbuf.c)'),
]

LIBC_GROUPS = [
    (r'^(malloc|free|calloc|realloc|_int_malloc|_int_free|_int_realloc'
     r'|malloc_consolidate|unlink_chunk|tcache_.*|__libc_malloc'
     r'|__libc_free|__libc_calloc|__libc_realloc|cfree)',
     'libc malloc/free'),
    (r'(printf|vfprintf|__printf|_IO_|_itoa|__strchrnul|outstring'
     r'|__find_specmb|printf_positional)', 'libc printf'),
    (r'(mem|str|wmem|__mem|__str|__stp|stpcpy)', 'libc memcpy/strlen/...'),
]

KEY_FUNCTIONS = [
    'hub_on_text', 'proto_parse', 'game_move_lag', 'play', 'moves_info',
    'movegen_legal', 'notation_san_in', 'record_outcome_n',
    'opening_after', 'opening_at',
    'proto_render_moved', 'board_to_fen', 'game_broadcast',
    'game_broadcast_moved', 'msgbuf_take',
    'env_put_move', 'env_hold', 'env_send', 'net_send', 'game_rearm',
    'conn_on_commits', 'write_released', 'lws_write', 'hub_wake',
    'release_held', 'conn_callback', 'lws_service_fd_tsi',
]


def parse(path):
    names = {'fn': {}, 'fl': {}, 'ob': {}}
    kind_of = {'fn': 'fn', 'cfn': 'fn', 'fl': 'fl', 'fi': 'fl', 'fe': 'fl',
               'cfi': 'fl', 'cfl': 'fl', 'ob': 'ob', 'cob': 'ob'}
    self_cost = collections.Counter()   # (ob, fn) -> Ir
    file_cost = collections.Counter()   # (ob, file, fn) -> Ir
    edges = collections.Counter()       # (caller fn, callee fn) -> Ir
    calls = collections.Counter()       # callee fn -> calls
    ecalls = collections.Counter()      # (caller fn, callee fn) -> calls
    total = 0
    ob = fl = cur_file = fn = cfn = ''
    in_call = False
    rx = re.compile(r'^(\w+)=(?:\((\d+)\))?\s*(.*)$')
    with open(path) as f:
        for line in f:
            line = line.rstrip('\n')
            if not line or line[0] == '#':
                continue
            c = line[0]
            if c.isdigit() or c in '+-*':
                fields = line.split()
                cost = int(fields[1]) if len(fields) > 1 else 0
                if in_call:
                    edges[(fn, cfn)] += cost
                    in_call = False
                else:
                    self_cost[(ob, fn)] += cost
                    file_cost[(ob, cur_file, fn)] += cost
                    total += cost
                continue
            m = rx.match(line)
            if not m:
                continue
            key, ident, name = m.groups()
            if key == 'calls':
                calls[cfn] += int(name.split()[0])
                ecalls[(fn, cfn)] += int(name.split()[0])
                in_call = True
                continue
            if key not in kind_of:
                continue
            table = names[kind_of[key]]
            if ident is not None:
                if name:
                    table[ident] = name
                name = table.get(ident, '?')
            if key == 'ob':
                ob = name
            elif key == 'fl':
                fl = cur_file = name
            elif key in ('fi', 'fe'):
                cur_file = name
            elif key == 'fn':
                fn = name
                cur_file = fl
            elif key == 'cfn':
                cfn = name
    return total, self_cost, file_cost, edges, calls, ecalls


def group_of(ob, file, fn):
    if file and file != '???':
        for rx, g in FILE_GROUPS:
            if re.search(rx, file):
                return g
    base = ob.rsplit('/', 1)[-1]
    if base.startswith('libwebsockets'):
        return 'libwebsockets (receive, parse, frame, write)'
    if base.startswith('libev'):
        return 'libev'
    if base.startswith('libc.so'):
        for rx, g in LIBC_GROUPS:
            if re.search(rx, fn):
                return g
        return 'libc other'
    if base.startswith('libjansson'):
        return 'jansson'
    if 'chess-server' in base:
        return 'chess-server, no line information'
    return 'other libraries (' + base + ')'


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--base')
    ap.add_argument('--move-fn', default='game_move_lag')
    ap.add_argument('--top', type=int, default=25)
    ap.add_argument('--callers', action='append', default=[])
    ap.add_argument('--callees', action='append', default=[])
    ap.add_argument('file')
    a = ap.parse_args()
    total, self_cost, file_cost, edges, calls, ecalls = parse(a.file)
    if a.base:
        b = parse(a.base)
        total -= b[0]
        for mine, theirs in zip((self_cost, file_cost, edges, calls, ecalls),
                                b[1:]):
            mine.subtract(theirs)
    moves = calls.get(a.move_fn, 0)
    if not moves:
        sys.exit('no calls of %s in %s' % (a.move_fn, a.file))
    print('moves=%d ir_total=%d ir_per_move=%.0f' %
          (moves, total, total / moves))

    groups = collections.Counter()
    for (ob, file, fn), cost in file_cost.items():
        groups[group_of(ob, file, fn)] += cost
    print('\n| group | Ir a move | share |\n| --- | ---: | ---: |')
    for g, cost in groups.most_common():
        if abs(cost) < moves / 2:  # under 0.5 a move
            continue
        print('| %s | %.0f | %.1f%% |' % (g, cost / moves,
                                         100.0 * cost / total))

    print('\nfunctions by their own instructions (a move):')
    for (ob, fn), cost in self_cost.most_common(a.top):
        if cost <= 0:
            break
        print('  %8.0f  %5.1f%%  %s [%s]' % (cost / moves, 100.0 * cost /
              total, fn, ob.rsplit('/', 1)[-1]))

    own = collections.Counter()
    for (ob, fn), cost in self_cost.items():
        own[fn] += cost
    incl = collections.Counter(own)
    for (caller, callee), cost in edges.items():
        if caller != callee:
            incl[caller] += cost
    print('\ninclusive (a move; calls a move):')
    for key in KEY_FUNCTIONS:
        # a static function may be a clone: moves_info.part.0.constprop.0
        found = [fn for fn in incl if fn == key or fn.startswith(key + '.')]
        for fn in found:
            print('  %8.0f  %6.2f  %s' % (incl[fn] / moves,
                                          calls.get(fn, 0) / moves, fn))

    for which, names in (('callers', a.callers), ('callees', a.callees)):
        for key in names:
            print('\n%s of %s (a move: Ir, calls):' % (which, key))
            rows = collections.Counter()
            for (caller, callee), cost in edges.items():
                mine, other = (callee, caller) if which == 'callers' else \
                    (caller, callee)
                if mine == key or mine.startswith(key + '.'):
                    rows[other] += cost
            for other, cost in rows.most_common():
                if abs(cost) < moves / 2:
                    break
                n = sum(c for (x, y), c in ecalls.items()
                        if (y if which == 'callers' else x).startswith(key)
                        and (x if which == 'callers' else y) == other)
                print('  %8.0f  %6.2f  %s' % (cost / moves, n / moves, other))


if __name__ == '__main__':
    main()
