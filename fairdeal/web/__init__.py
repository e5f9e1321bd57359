"""The browser side of fairdeal: the table client's static files and the offline verifier page."""
