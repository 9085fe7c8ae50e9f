# Installs a Python application's requirements and runs it.
FROM python:3

WORKDIR /usr/src/app
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1

COPY requirements.txt ./
RUN pip install --no-cache-dir -r requirements.txt

COPY . .

# The port your application listens on, and the command that starts it.
# EXPOSE 8000
CMD ["python", "main.py"]
