"""Checks every link and image of the built site (`make docs`) with linkchecker,
over HTTP from a server on 127.0.0.1 run by this script: linkchecker run as root
drops to the user nobody, who may not be able to read the site's files directly.
Links out of the site are not followed (no network needed).

usage: python check_links.py SITE_DIR LINKCHECKERRC
"""

import functools
import http.server
import subprocess
import sys
import threading
from pathlib import Path


class Handler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def end_headers(self):
        # linkchecker goes above 10 requests a second to a host only when the
        # host says it allows it (maxrequestspersecond in linkcheckerrc).
        self.send_header("LinkChecker", "allowed")
        super().end_headers()


def main() -> int:
    site, config = Path(sys.argv[1]).resolve(), sys.argv[2]
    handler = functools.partial(Handler, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/index.html"
        linkchecker = Path(sys.executable).parent / "linkchecker"
        return subprocess.run([str(linkchecker), "--config", config, url]).returncode
    finally:
        server.shutdown()


if __name__ == "__main__":
    sys.exit(main())
