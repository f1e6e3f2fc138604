"""acked.py - acknowledged moves against the store.

chess-loadgen --acked FILE writes a line "GID PLY" per game it played:
the highest ply a `moved` or `state` of the game showed any of its
connections. The server sends nothing about a game before it is stored
(ARCHITECTURE.md, "The durability rule"), so each such ply was
acknowledged. A move is lost only when it was acknowledged and is not in
the store: the game's highest ply in `journal` (games in play) and
`moves` (games over) is lower.

    import acked
    want = acked.read(path)
    rows = run(acked.STORED_SQL)   # [(gid, ply)], SQLite or PostgreSQL
    lost = acked.lost(want, rows)  # [(gid, acked ply, stored ply)]
"""

# Every game's highest stored ply, on either backend.
STORED_SQL = ("SELECT gid, max(ply) FROM (SELECT gid, ply FROM journal "
              "UNION ALL SELECT gid, ply FROM moves) AS t GROUP BY gid")


def read(path):
    """{gid: the highest acknowledged ply} of an --acked file."""
    out = {}
    with open(path) as f:
        for line in f:
            gid, ply = line.split()
            out[gid] = max(out.get(gid, 0), int(ply))
    return out


def lost(want, rows):
    """The games whose acknowledged ply is not stored: [(gid, acked,
    stored)]; rows are (gid, highest stored ply)."""
    stored = {gid: int(ply) for gid, ply in rows}
    return sorted((gid, ply, stored.get(gid, 0))
                  for gid, ply in want.items() if stored.get(gid, 0) < ply)


def moves(want, rows):
    """(moves lost, games checked): the plies acknowledged and not stored,
    summed over the games."""
    return sum(a - s for _, a, s in lost(want, rows)), len(want)
