"""``make bench-peers``: the peer comparison, which ships with the package
(:mod:`search.bench.peers`; ``mombasa bench --peers`` for installed users)."""

from search.bench.peers import main

if __name__ == "__main__":
    main()
