# Builds a Swift package in release mode and runs its executable (change `App` below to your
# product's name).
FROM swift:latest AS build

WORKDIR /src
COPY . .
RUN swift build -c release && cp "$(swift build -c release --show-bin-path)/App" /app

FROM swift:slim
COPY --from=build /app /usr/local/bin/app

# EXPOSE 8080
CMD ["app"]
