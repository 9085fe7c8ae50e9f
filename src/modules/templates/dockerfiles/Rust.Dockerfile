# Builds a Cargo project in release mode and runs its binary (named after the package; change
# `app` below to yours).
FROM rust:1 AS build

WORKDIR /src
COPY . .
RUN cargo build --release --locked && cp target/release/app /app

FROM debian:stable-slim
COPY --from=build /app /usr/local/bin/app

# EXPOSE 8080
CMD ["app"]
