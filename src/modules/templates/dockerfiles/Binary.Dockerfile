# Runs a prebuilt program from the repository (./bin/app) on a small Debian base.
FROM debian:stable-slim

WORKDIR /app
COPY bin/app /usr/local/bin/app

# The port your program listens on, if it serves anything.
# EXPOSE 8080

CMD ["app"]
