# Builds a Maven project and runs the jar it makes on a Java runtime for Alpine Linux.
FROM maven:3-eclipse-temurin-21-alpine AS build

WORKDIR /src
COPY pom.xml .
RUN mvn -B dependency:go-offline
COPY src ./src
RUN mvn -B package -DskipTests && cp target/*.jar /app.jar

FROM eclipse-temurin:21-jre-alpine
COPY --from=build /app.jar /app.jar

# EXPOSE 8080
CMD ["java", "-jar", "/app.jar"]
